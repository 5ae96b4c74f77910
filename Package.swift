// swift-tools-version: 6.1
// Hearth: a personal data hub for Linux. No dependency beyond the Swift toolchain and
// Debian's system libraries (libsqlite3-dev, libzmq3-dev); see README.md for the set-up.
import CompilerPluginSupport
import Foundation
import PackageDescription

/// `<toolchain>/usr/lib/swift/host`, where the toolchain ships swift-syntax's modules and
/// libraries: macros build against them, so nothing is fetched.
let toolchainHost: String = {
  let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
  for directory in path.split(separator: ":") {
    let swiftc = URL(fileURLWithPath: String(directory)).appendingPathComponent("swiftc")
    if FileManager.default.fileExists(atPath: swiftc.path) {
      return swiftc.resolvingSymlinksInPath()
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("lib/swift/host").path
    }
  }
  return "/usr/lib/swift/host"
}()

let syntaxLibraries = [
  "SwiftSyntax", "SwiftSyntaxMacros", "SwiftSyntaxBuilder", "SwiftDiagnostics", "SwiftParser",
  "SwiftOperators", "SwiftBasicFormat", "SwiftSyntaxMacroExpansion",
  "SwiftCompilerPluginMessageHandling", "SwiftParserDiagnostics",
]
let syntaxSwiftSettings: [SwiftSetting] = [.unsafeFlags(["-I", toolchainHost])]
let syntaxLinkerSettings: [LinkerSetting] = [
  .unsafeFlags(
    ["-L", toolchainHost] + syntaxLibraries.map { "-l\($0)" }
      + ["-Xlinker", "-rpath", "-Xlinker", toolchainHost])
]

/// Every Swift target is built in Swift 6 language mode (complete concurrency checking),
/// with existential `any` spelled out.
let strict: [SwiftSetting] = [
  .enableUpcomingFeature("ExistentialAny")
]

let package = Package(
  name: "Hearth",
  products: [
    .library(name: "HearthSupport", targets: ["HearthSupport"]),
    .library(name: "HearthDependencies", targets: ["HearthDependencies"]),
    .library(name: "HearthCommandLine", targets: ["HearthCommandLine"]),
    .library(name: "HearthService", targets: ["HearthService"]),
    .library(name: "HearthSQLite", targets: ["HearthSQLite"]),
    .library(name: "HearthQuery", targets: ["HearthQuery"]),
    .library(name: "HearthData", targets: ["HearthData"]),
    // The reference's module names, for code written from its documentation.
    .library(name: "SQLiteData", targets: ["SQLiteData"]),
    .library(name: "StructuredQueries", targets: ["StructuredQueries"]),
    .library(name: "Tagged", targets: ["Tagged"]),
    .library(name: "CasePaths", targets: ["CasePaths"]),
    .library(name: "SharingGRDB", targets: ["SharingGRDB"]),
    .library(name: "HearthDataTestSupport", targets: ["HearthDataTestSupport"]),
    .library(name: "HearthTransport", targets: ["HearthTransport"]),
    .library(name: "HearthWire", targets: ["HearthWire"]),
    .library(name: "HearthHub", targets: ["HearthHub"]),
    .library(name: "HearthPlugin", targets: ["HearthPlugin"]),
    .executable(name: "hearthd", targets: ["hearthd"]),
    .executable(name: "hearth", targets: ["hearth"]),
    .executable(name: "hearth-bench", targets: ["hearth-bench"]),
    .executable(name: "hearth-faults", targets: ["hearth-faults"]),
    .executable(name: "hearth-demo", targets: ["hearth-demo"]),
    .executable(name: "hearth-web", targets: ["hearth-web"]),
  ],
  // The reference's package traits, so that a manifest written for it names them unchanged.
  // Hearth always has what `CasePaths` turns on (enum tables) and has no `@available` checks
  // for `SuppressPlatformSQLiteAvailability` to suppress; the others change what they say.
  traits: [
    .trait(name: "CasePaths", description: "Enum tables: always on in Hearth."),
    .trait(
      name: "ColumnCoding",
      description: "Codable tables and selections encode under their column names."),
    .trait(
      name: "LazyInitializableByDefault",
      description: "A draft's non-optional properties without a default are optional."),
    .trait(
      name: "StrictDecoding",
      description: "A column whose storage class does not match the Swift type throws."),
    .trait(
      name: "SuppressPlatformSQLiteAvailability",
      description: "Accepted for the reference's manifests: Hearth has no such checks."),
    .trait(name: "Tagged", description: "Tagged identifiers (`Tagged<Self, Int>`) as columns."),
    .trait(name: "StructuredQueriesCasePaths", enabledTraits: ["CasePaths"]),
    .trait(name: "StructuredQueriesTagged", enabledTraits: ["Tagged"]),
    .trait(name: "SQLiteDataTagged", enabledTraits: ["Tagged"]),
  ],
  targets: [
    .systemLibrary(
      name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
    // No pkgConfig: libzmq.pc adds Kerberos include flags that SwiftPM rejects with a warning.
    .systemLibrary(name: "CZMQ", providers: [.apt(["libzmq3-dev"])]),
    .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
    .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
    .systemLibrary(name: "CPostgreSQL", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
    // No pkgConfig: libmicrohttpd.pc adds p11-kit's include directory, which it does not need.
    .systemLibrary(name: "CMicroHTTPD", providers: [.apt(["libmicrohttpd-dev"])]),
    // The kernel's own headers (linux-libc-dev), for calls Glibc's module leaves out.
    .systemLibrary(name: "CLinux"),
    .systemLibrary(name: "CICal", pkgConfig: "libical", providers: [.apt(["libical-dev"])]),
    // The bottom: a lock ThreadSanitizer understands and the logger; then dependencies
    // (date, UUID, clock, error reporting), which everything above may read.
    .target(name: "HearthSupport", swiftSettings: strict),
    // libpq: a connection to the sync server, knowing nothing of Hearth's tables.
    .target(
      name: "HearthPostgres", dependencies: ["CPostgreSQL", "HearthSupport"],
      swiftSettings: strict),
    // Sync across hubs: capture, the hybrid logical clock, the merge, and the service on
    // PostgreSQL with sharing and files.
    .target(
      name: "HearthSync",
      dependencies: [
        "HearthSQLite", "HearthPostgres", "HearthSupport", "HearthWire", "HearthTransport",
      ],
      swiftSettings: strict),
    .target(name: "HearthDependencies", dependencies: ["HearthSupport"], swiftSettings: strict),
    // Subcommands, options, help and exit codes, for every executable.
    .target(name: "HearthCommandLine", swiftSettings: strict),
    // Run services until SIGTERM or SIGINT, stop them in order: hearthd, a feature's run.
    .target(name: "HearthService", dependencies: ["HearthSupport"], swiftSettings: strict),
    .target(
      name: "HearthSQLite", dependencies: ["CSQLite", "HearthSupport"], swiftSettings: strict),
    // Naming and quoting shared by the macros and the runtime, so both give the same answer.
    .target(name: "HearthNaming", swiftSettings: strict),
    .macro(
      name: "HearthQueryMacros", dependencies: ["HearthNaming"],
      swiftSettings: strict + syntaxSwiftSettings, linkerSettings: syntaxLinkerSettings),
    .target(
      name: "HearthQueryCore", dependencies: ["HearthSQLite", "HearthNaming"],
      swiftSettings: strict),
    .target(
      name: "HearthQuery", dependencies: ["HearthQueryCore", "HearthQueryMacros"],
      swiftSettings: strict),
    .target(
      name: "HearthData", dependencies: ["HearthQuery", "HearthDependencies"],
      swiftSettings: strict),
    .target(
      name: "HearthDataTestSupport", dependencies: ["HearthData"], swiftSettings: strict),
    .target(
      name: "SQLiteData",
      dependencies: ["HearthData", .target(name: "Tagged", condition: .when(traits: ["Tagged"]))],
      swiftSettings: strict),
    .target(
      name: "StructuredQueries",
      dependencies: ["HearthQuery", .target(name: "Tagged", condition: .when(traits: ["Tagged"]))],
      swiftSettings: strict),
    // A type-safe identifier, `Tagged<Tag, RawValue>`, bound and read as its raw value.
    .target(name: "Tagged", dependencies: ["HearthQuery"], swiftSettings: strict),
    .target(name: "CasePaths", dependencies: ["HearthQuery"], swiftSettings: strict),
    .target(
      name: "SharingGRDB", dependencies: ["HearthData", "HearthNaming"], swiftSettings: strict),
    // The protocol (Protocols/README.md) and nothing that moves it: messages, one codec
    // shape, the change record, errors both ways, the hub's tables as a reader.
    .target(name: "HearthWire", dependencies: ["HearthSQLite", "CCrypto"], swiftSettings: strict),
    // Every byte on a socket: libzmq (the bus, the request socket, CURVE, ZAP), both ends of
    // the request stream and its Noise handshake, the hub's paths and keys, the feed
    // follower, the systemd notification, and the one wait on a plain descriptor.
    .target(
      name: "HearthTransport",
      dependencies: [
        "CZMQ", "CSodium", "HearthWire", "HearthSQLite", "HearthSupport", "HearthDependencies",
      ],
      swiftSettings: strict),
    .target(
      name: "HearthHub",
      dependencies: [
        "HearthWire", "HearthTransport", "HearthSQLite", "HearthDependencies", "HearthService",
        "HearthSupport", "HearthSync", "HearthCommandLine", "CLinux",
      ],
      swiftSettings: strict),
    .target(
      name: "HearthPlugin",
      dependencies: [
        "HearthData", "HearthWire", "HearthTransport", "HearthSQLite", "HearthCommandLine",
        "HearthService",
      ],
      swiftSettings: strict),
    .executableTarget(
      name: "hearthd",
      dependencies: [
        "HearthHub", "HearthWire", "HearthTransport", "HearthCommandLine", "HearthService",
        "HearthSupport",
      ],
      swiftSettings: strict),
    // Real processes (hearthd, writers, subscribers) for the process tests, the benchmarks
    // and the fault suite.
    .target(name: "HearthTestbed", dependencies: ["HearthTransport"], swiftSettings: strict),
    .executableTarget(
      name: "hearth-faults",
      dependencies: [
        "HearthTestbed", "HearthSQLite", "HearthWire", "HearthTransport", "HearthCommandLine",
        "HearthSupport",
      ],
      swiftSettings: strict),
    .executableTarget(
      name: "hearth",
      dependencies: [
        "HearthWire", "HearthTransport", "HearthSQLite", "HearthCommandLine", "HearthPostgres",
        "HearthSync", "HearthSupport",
      ],
      swiftSettings: strict),
    .executableTarget(
      name: "hearth-loadgen",
      dependencies: [
        "HearthPlugin", "HearthData", "HearthWire", "HearthTransport", "HearthTestbed",
      ],
      swiftSettings: strict),
    .executableTarget(
      name: "hearth-bench",
      dependencies: [
        "HearthSQLite", "HearthQuery", "HearthData", "HearthHub", "HearthPlugin", "HearthWire",
        "HearthTransport", "CSQLite", "RemindersFeature", "HearthTestbed", "HearthCommandLine",
        "HearthPostgres", "HearthSync",
      ],
      swiftSettings: strict),
    .executableTarget(name: "hearth-demo", dependencies: ["HearthData"], swiftSettings: strict),
    // HTTP: the server over libmicrohttpd, and what a request says (its Host, Origin,
    // cookies, form, route: pure and fuzzed).
    .target(
      name: "HearthHTTP", dependencies: ["CMicroHTTPD", "HearthSupport"], swiftSettings: strict),
    // The browser view: the HTTP server over libmicrohttpd, the pages, the live streams.
    .target(
      name: "HearthWeb",
      dependencies: [
        "CSodium", "HearthHTTP", "HearthPlugin", "HearthSQLite", "HearthSync",
        "HearthWire", "HearthTransport", "HearthSupport",
      ],
      swiftSettings: strict),
    .executableTarget(
      name: "hearth-web",
      dependencies: [
        "HearthWeb", "HearthHTTP", "HearthPlugin", "HearthCommandLine", "HearthService",
        "HearthSupport", "HearthWire",
      ],
      swiftSettings: strict),
    // The features: each written only against HearthPlugin and HearthData (and, for the
    // attachments' SHA-256, Debian's libsodium), as a plugin author's would be.
    // The reminders also serve CalDAV (HearthHTTP), with iCalendar by libical.
    .target(
      name: "RemindersFeature",
      dependencies: [
        "HearthPlugin", "HearthData", "HearthHTTP", "HearthWire", "HearthService",
        "HearthSupport", "CICal", "CSodium",
      ],
      path: "Plugins/reminders/RemindersFeature", swiftSettings: strict),
    .executableTarget(
      name: "hearth-reminders", dependencies: ["RemindersFeature", "HearthPlugin", "HearthData"],
      path: "Plugins/reminders/hearth-reminders", swiftSettings: strict),
    .target(
      name: "AttachmentsFeature",
      dependencies: ["HearthPlugin", "HearthData", "HearthWire", "CSodium"],
      path: "Plugins/attachments/AttachmentsFeature", swiftSettings: strict),
    .executableTarget(
      name: "hearth-attachments",
      dependencies: ["AttachmentsFeature", "HearthPlugin", "HearthData"],
      path: "Plugins/attachments/hearth-attachments", swiftSettings: strict),
    .target(
      name: "FactsFeature", dependencies: ["HearthPlugin", "HearthData"],
      path: "Plugins/facts/FactsFeature", swiftSettings: strict),
    .executableTarget(
      name: "hearth-facts", dependencies: ["FactsFeature", "HearthPlugin", "HearthData"],
      path: "Plugins/facts/hearth-facts", swiftSettings: strict),
    .target(
      name: "SyncUpsFeature", dependencies: ["HearthPlugin", "HearthData"],
      path: "Plugins/syncups/SyncUpsFeature", swiftSettings: strict),
    .executableTarget(
      name: "hearth-syncups", dependencies: ["SyncUpsFeature", "HearthPlugin", "HearthData"],
      path: "Plugins/syncups/hearth-syncups", swiftSettings: strict),
    .testTarget(
      name: "HearthSQLiteTests",
      dependencies: ["HearthSQLite", "HearthWire", "CSQLite", "HearthDataTestSupport"],
      swiftSettings: strict),
    .testTarget(name: "HearthQueryTests", dependencies: ["HearthQuery"], swiftSettings: strict),
    .testTarget(
      name: "CompatibilityTests",
      dependencies: [
        "SharingGRDB", "CasePaths", "SQLiteData", "StructuredQueries", "HearthDataTestSupport",
      ],
      swiftSettings: strict),
    .testTarget(
      name: "HearthConformanceTests",
      dependencies: ["HearthQuery", "HearthDataTestSupport", "Tagged"],
      swiftSettings: strict),
    .testTarget(
      name: "HearthTransportTests",
      dependencies: ["HearthTransport", "HearthWire", "HearthSupport"],
      swiftSettings: strict),
    .testTarget(
      name: "HearthSyncTests", dependencies: ["HearthSync", "HearthWire", "HearthDataTestSupport"],
      swiftSettings: strict),
    .testTarget(
      name: "HearthPostgresTests", dependencies: ["HearthPostgres", "HearthTestbed"],
      swiftSettings: strict),
    .testTarget(
      name: "HearthCommandLineTests",
      dependencies: ["HearthCommandLine", "HearthService", "HearthSupport"], swiftSettings: strict),
    .testTarget(
      name: "HearthWireTests",
      dependencies: ["HearthWire", "HearthSQLite", "HearthTransport", "HearthSupport"],
      swiftSettings: strict),
    .testTarget(
      name: "HearthHubTests",
      dependencies: [
        "HearthHub", "HearthPlugin", "HearthWire", "HearthTransport", "HearthDataTestSupport",
        "AttachmentsFeature", "FactsFeature", "RemindersFeature",
        "HearthTestbed", "HearthPostgres", "HearthSync", "CLinux",
      ],
      swiftSettings: strict),
    // Each feature's actions, in-process on a local database (the CLI tests in HearthHubTests
    // are the end-to-end layer).
    .testTarget(
      name: "FeatureTests",
      dependencies: [
        "RemindersFeature", "FactsFeature", "SyncUpsFeature", "AttachmentsFeature", "HearthData",
        "HearthDataTestSupport", "HearthPlugin",
      ],
      swiftSettings: strict),
    .testTarget(
      name: "HearthWebTests",
      dependencies: [
        "HearthWeb", "HearthHTTP", "HearthSQLite", "HearthSync", "HearthDataTestSupport",
      ],
      swiftSettings: strict),
    .testTarget(
      name: "HearthDataTests", dependencies: ["HearthData", "HearthDataTestSupport"],
      swiftSettings: strict),
    .testTarget(
      name: "HearthQueryMacrosTests", dependencies: ["HearthQueryMacros"],
      swiftSettings: strict + syntaxSwiftSettings, linkerSettings: syntaxLinkerSettings),
  ],
  swiftLanguageModes: [.v6]
)
