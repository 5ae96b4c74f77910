import Foundation

/// The keys of a hub and of its plugins, in the keyring directory (`HubPaths.keysDirectory`,
/// mode 0700, its files 0600):
/// - `hub.key`: the hub's CURVE key pair, made at its first start;
/// - `plugins/NAME.key`: the key pair issued to plugin NAME (`hearth plugins add NAME`).
///
/// The hub admits a request to act as plugin NAME only from a connection authenticated with
/// the key in `plugins/NAME.key`; deleting the file (`hearth plugins remove NAME`) revokes
/// it. Whoever can write this directory is the hub's owner.
public struct Keyring: Sendable {
  public let directory: String

  public init(directory: String) { self.directory = directory }

  public var hubKeyPath: String { directory + "/hub.key" }
  public var pluginsDirectory: String { directory + "/plugins" }
  public func keyPath(ofPlugin name: String) -> String { pluginsDirectory + "/\(name).key" }

  /// The hub's key pair, made (and saved) the first time.
  public func hubKeys() throws -> CurveKeyPair {
    if let keys = try KeyFile.read(hubKeyPath) { return keys }
    let keys = try CurveKeyPair.generate()
    try KeyFile.create(keys, at: hubKeyPath, comment: "the hub's")
    return try KeyFile.read(hubKeyPath) ?? keys
  }

  /// The key pair issued to plugin `name`, nil when none is.
  public func pluginKeys(_ name: String) throws -> CurveKeyPair? {
    try KeyFile.read(keyPath(ofPlugin: name))
  }

  /// Issues plugin `name` a new key pair; throws when it has one (revoke it first to replace
  /// it) and, with `unlessRevoked`, when the owner revoked its last key (an explicit
  /// `hearth plugins add` issues one again; a plugin starting does not).
  @discardableResult
  public func issue(_ name: String, unlessRevoked: Bool = false) throws -> CurveKeyPair {
    guard Self.isPluginName(name) else {
      throw KeyringError(
        "\(name) cannot have a key: a plugin name is 1 to 64 letters, digits, '-', '_' or '.', "
          + "not starting with '.'")
    }
    let revoked = revokedPath(ofPlugin: name)
    if unlessRevoked, FileManager.default.fileExists(atPath: revoked) {
      throw KeyringError("the owner revoked plugin \(name)'s key (\(revoked))")
    }
    let keys = try CurveKeyPair.generate()
    try KeyFile.create(keys, at: keyPath(ofPlugin: name), comment: "plugin \(name)'s")
    unlink(revoked)
    return keys
  }

  /// Where a revoked key of plugin `name` is kept (its public part only, for the record).
  public func revokedPath(ofPlugin name: String) -> String { pluginsDirectory + "/\(name).revoked" }

  /// Whether `name` can name a key file: 1 to 64 ASCII letters, digits, `-`, `_` or `.`, not
  /// starting with `.`.
  public static func isPluginName(_ name: String) -> Bool {
    let bytes = Array(name.utf8)
    return (1...64).contains(bytes.count) && bytes.first != UInt8(ascii: ".")
      && bytes.allSatisfy { byte in
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
          || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
          || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
          || [UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: ".")].contains(byte)
      }
  }

  /// Revokes plugin `name`'s key: the hub refuses it from its next request on, and the
  /// plugin is issued no new one until the owner asks (`issue`). False when it had none.
  @discardableResult
  public func revoke(_ name: String) throws -> Bool {
    let path = keyPath(ofPlugin: name)
    guard let keys = try? KeyFile.read(path) else {
      return FileManager.default.fileExists(atPath: path) ? (unlink(path) == 0) : false
    }
    let record =
      "# Hearth: plugin \(name)'s key, revoked \(Date())\npublic-key = \(keys.publicKey)\n"
    _ = FileManager.default.createFile(
      atPath: revokedPath(ofPlugin: name), contents: Data(record.utf8),
      attributes: [.posixPermissions: 0o600])
    guard unlink(path) == 0 else {
      throw KeyringError("cannot remove \(path): \(String(cString: strerror(errno)))")
    }
    return true
  }

  /// Every plugin with a key: public key → plugin name. A file that is not a key is
  /// skipped (and named in `unreadable`).
  public func issuedKeys() -> (plugins: [String: String], unreadable: [String]) {
    var cache = IssuedKeyCache()
    return issuedKeys(cache: &cache)
  }

  /// `issuedKeys()`, reading again only the key files that changed since `cache` saw them
  /// (a reader that reads the keys again and again: the hub). Reading a key derives its
  /// public half from the secret one, a curve multiplication per file.
  public func issuedKeys(cache: inout IssuedKeyCache) -> (
    plugins: [String: String], unreadable: [String]
  ) {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: pluginsDirectory)) ?? []
    var plugins: [String: String] = [:]
    var unreadable: [String] = []
    var seen: [String: IssuedKeyCache.Entry] = [:]
    for file in names.sorted() where file.hasSuffix(".key") {
      let name = String(file.dropLast(4))
      let path = keyPath(ofPlugin: name)
      let stamp = IssuedKeyCache.Stamp(path)
      let publicKey =
        if let stamp, let kept = cache.entries[file], kept.stamp == stamp {
          kept.publicKey
        } else {
          (try? pluginKeys(name))?.publicKey
        }
      if let stamp { seen[file] = IssuedKeyCache.Entry(stamp: stamp, publicKey: publicKey) }
      if let publicKey {
        plugins[publicKey] = name
      } else {
        unreadable.append(file)
      }
    }
    cache.entries = seen
    return (plugins, unreadable)
  }

  /// When the set of issued keys last changed (the plugins directory's modification time):
  /// a reader rereads the keys when it moves.
  public func stamp() -> timespec? {
    var status = stat()
    guard stat(pluginsDirectory, &status) == 0 else { return nil }
    return status.st_mtim
  }
}

/// What `Keyring.issuedKeys(cache:)` read of each key file. A key file is written whole and
/// linked into place (`KeyFile.create`): one whose inode, size and change time are what they
/// were holds the key it held.
public struct IssuedKeyCache: Sendable {
  struct Stamp: Equatable, Sendable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var changed: Int64
    var changedNanoseconds: Int

    init?(_ path: String) {
      var status = stat()
      guard stat(path, &status) == 0 else { return nil }
      device = UInt64(status.st_dev)
      inode = UInt64(status.st_ino)
      size = Int64(status.st_size)
      changed = Int64(status.st_ctim.tv_sec)
      changedNanoseconds = status.st_ctim.tv_nsec
    }
  }

  struct Entry: Sendable {
    var stamp: Stamp
    /// Nil for a file that is not a key.
    var publicKey: String?
  }

  var entries: [String: Entry] = [:]

  public init() {}
}

/// A key pair in a file, as text:
///
/// ```text
/// # Hearth CURVE key pair: plugin reminders's. Keep it secret.
/// public-key = <40 characters of Z85>
/// secret-key = <40 characters of Z85>
/// ```
///
/// The public key is derived from the secret one; a `public-key` line that does not match
/// it makes the file unreadable.
public enum KeyFile {
  /// The pair in the file at `path`; nil when there is no file.
  public static func read(_ path: String) throws -> CurveKeyPair? {
    guard FileManager.default.fileExists(atPath: path) else { return nil }
    let data: Data
    do {
      data = try Data(contentsOf: URL(fileURLWithPath: path))
    } catch {
      throw KeyringError("cannot read \(path): \(error.localizedDescription)")
    }
    return try parse(String(decoding: data, as: UTF8.self), path: path)
  }

  /// The pair in a key file's text.
  public static func parse(_ text: String, path: String) throws -> CurveKeyPair {
    var fields: [String: String] = [:]
    for line in text.split(separator: "\n") {
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      guard !trimmed.hasPrefix("#"), let equals = trimmed.firstIndex(of: "=") else { continue }
      fields[trimmed[..<equals].trimmingCharacters(in: .whitespaces)] =
        trimmed[trimmed.index(after: equals)...].trimmingCharacters(in: .whitespaces)
    }
    guard let secret = fields["secret-key"], let keys = CurveKeyPair(secretKey: secret) else {
      throw KeyringError("\(path) has no secret-key line with a CURVE key in Z85")
    }
    if let stated = fields["public-key"], stated != keys.publicKey {
      throw KeyringError("\(path): its public-key is not the secret-key's")
    }
    return keys
  }

  /// The file's text for `keys`.
  public static func text(_ keys: CurveKeyPair, comment: String) -> String {
    """
    # Hearth CURVE key pair: \(comment). Keep it secret.
    public-key = \(keys.publicKey)
    secret-key = \(keys.secretKey)

    """
  }

  /// Writes `keys` to a new file at `path`, mode 0600 (its directory made 0700); throws
  /// `alreadyIssued` when the file exists, and leaves no partial file.
  static func create(_ keys: CurveKeyPair, at path: String, comment: String) throws {
    let directory = (path as NSString).deletingLastPathComponent
    do {
      try FileManager.default.createDirectory(
        atPath: directory, withIntermediateDirectories: true,
        attributes: [.posixPermissions: 0o700])
    } catch {
      throw KeyringError("cannot make \(directory): \(error.localizedDescription)")
    }
    // Written whole under a temporary name, then linked into place: `link` fails when the
    // name exists, so two issuers never both win, and a reader never sees half a key.
    let temporary = path + ".\(getpid()).tmp"
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else {
      throw KeyringError("cannot write \(temporary): \(String(cString: strerror(errno)))")
    }
    defer { unlink(temporary) }
    let bytes = Array(text(keys, comment: comment).utf8)
    let written = write(descriptor, bytes, bytes.count)
    let synced = fsync(descriptor) == 0
    close(descriptor)
    guard written == bytes.count, synced else {
      throw KeyringError("cannot write \(temporary): \(String(cString: strerror(errno)))")
    }
    guard link(temporary, path) == 0 else {
      if errno == EEXIST { throw KeyringError.alreadyIssued(path) }
      throw KeyringError("cannot create \(path): \(String(cString: strerror(errno)))")
    }
  }
}

/// A keyring that cannot be read or changed as asked.
public struct KeyringError: Error, CustomStringConvertible, Sendable, Equatable {
  public var description: String
  /// The key file already exists.
  public var isAlreadyIssued = false

  public init(_ description: String) { self.description = description }

  static func alreadyIssued(_ path: String) -> KeyringError {
    var error = KeyringError("\(path) exists: that key is issued (revoke it first to replace it)")
    error.isAlreadyIssued = true
    return error
  }
}
