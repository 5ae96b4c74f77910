// swift-tools-version: 6.0
// Hearth: a personal data hub for Linux. No dependency beyond the Swift toolchain and
// Debian's system libraries (libsqlite3-dev, libzmq3-dev); see README.md for the set-up.
import PackageDescription

/// Every Swift target is built in Swift 6 language mode (complete concurrency checking),
/// with existential `any` spelled out.
let strict: [SwiftSetting] = [
  .enableUpcomingFeature("ExistentialAny")
]

let package = Package(
  name: "Hearth",
  products: [
    .library(name: "HearthSQLite", targets: ["HearthSQLite"]),
    .executable(name: "hearth-bench", targets: ["hearth-bench"]),
    .executable(name: "hearth-demo", targets: ["hearth-demo"]),
  ],
  targets: [
    .systemLibrary(
      name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
    // No pkgConfig: libzmq.pc adds Kerberos include flags that SwiftPM rejects with a warning.
    .systemLibrary(name: "CZMQ", providers: [.apt(["libzmq3-dev"])]),
    .target(name: "HearthSQLite", dependencies: ["CSQLite"], swiftSettings: strict),
    .executableTarget(
      name: "hearth-bench", dependencies: ["HearthSQLite", "CSQLite"], swiftSettings: strict),
    .executableTarget(name: "hearth-demo", dependencies: ["HearthSQLite"], swiftSettings: strict),
    .testTarget(
      name: "HearthSQLiteTests", dependencies: ["HearthSQLite", "CSQLite", "CZMQ"],
      swiftSettings: strict),
  ],
  swiftLanguageModes: [.v6]
)
