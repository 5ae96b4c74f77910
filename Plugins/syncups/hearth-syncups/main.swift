// hearth-syncups: the sync-ups feature's command line (see SyncUpsFeature/Tool.swift).
import SyncUpsFeature

syncUpsTool().main()
