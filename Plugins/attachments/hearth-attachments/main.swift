// hearth-attachments: the attachments feature's command line (see AttachmentsFeature/Tool.swift).
import AttachmentsFeature

attachmentsTool().main()
