// hearth-reminders: the reminders feature's command line (see RemindersFeature/Tool.swift).
import RemindersFeature

remindersTool().main()
