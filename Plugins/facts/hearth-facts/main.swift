// hearth-facts: the facts feature's command line (see FactsFeature/Tool.swift).
import FactsFeature

factsTool().main()
