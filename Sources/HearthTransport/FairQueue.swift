/// Requests waiting for the hub's thread, kept apart by who sent them: by principal (a
/// plugin, or every key of no plugin together) and, within one, by connection. `take` serves
/// the principals in turn, and each principal's connections in turn, so that one client's
/// backlog delays another's request by at most one request of its own per turn.
///
/// A connection's requests leave with it (`remove(source:)`): a client that has gone is
/// not answered, so its requests are not run.
///
/// Inlinable: the hub's loop uses it from another module on every request, and unspecialized
/// generic code there (metadata look-ups, hashing through witnesses) costs more than the queue.
public struct FairQueue<Source: Hashable, Item> {
  @usableFromInline struct Principal {
    @usableFromInline var sources: [Source: [Item]] = [:]
    /// The sources with items, in the order they are served.
    @usableFromInline var order: [Source] = []
    @usableFromInline var count = 0

    @inlinable init() {}
  }

  @usableFromInline var principals: [String: Principal] = [:]
  /// The principals with items, in the order they are served next.
  @usableFromInline var order: [String] = []
  @usableFromInline var principalOf: [Source: String] = [:]
  @usableFromInline var waitingCount = 0

  @inlinable public init() {}

  /// How many requests wait.
  @inlinable public var count: Int { waitingCount }

  @inlinable public var isEmpty: Bool { waitingCount == 0 }

  /// How many principals have requests waiting.
  @inlinable public var waitingPrincipals: Int { order.count }

  /// How many of `source`'s requests wait.
  @inlinable public func count(of source: Source) -> Int {
    guard let name = principalOf[source] else { return 0 }
    return principals[name]?.sources[source]?.count ?? 0
  }

  /// How many of `principal`'s requests wait.
  @inlinable public func count(ofPrincipal principal: String) -> Int {
    principals[principal]?.count ?? 0
  }

  // Every change below is made in place (`principals[name]!…`): a copy of a principal's
  // entry taken out and written back would copy its queues on each request.

  @inlinable public mutating func append(_ item: Item, principal: String, source: Source) {
    insert(item, principal: principal, source: source, first: false)
  }

  /// Puts back a request taken and not served, first of its connection's (a turn that ran
  /// out of time hands back what it did not reach, last first). Its principal keeps its
  /// place in the turn, or goes to the back when it had nothing left waiting.
  @inlinable public mutating func putBack(_ item: Item, principal: String, source: Source) {
    insert(item, principal: principal, source: source, first: true)
  }

  @inlinable mutating func insert(_ item: Item, principal: String, source: Source, first: Bool) {
    if principals[principal] == nil {
      principals[principal] = Principal()
      order.append(principal)
    }
    if principals[principal]!.sources[source] == nil {
      principals[principal]!.sources[source] = []
      if first {
        principals[principal]!.order.insert(source, at: 0)
      } else {
        principals[principal]!.order.append(source)
      }
    }
    if first {
      principals[principal]!.sources[source]!.insert(item, at: 0)
    } else {
      principals[principal]!.sources[source]!.append(item)
    }
    principals[principal]!.count += 1
    principalOf[source] = principal
    waitingCount += 1
  }

  /// Forgets `source`'s requests; returns them.
  @inlinable @discardableResult
  public mutating func remove(source: Source) -> [Item] {
    guard let name = principalOf.removeValue(forKey: source),
      let items = principals[name]?.sources.removeValue(forKey: source)
    else { return [] }
    principals[name]!.order.removeAll { $0 == source }
    principals[name]!.count -= items.count
    waitingCount -= items.count
    if principals[name]!.count == 0 {
      principals[name] = nil
      order.removeAll { $0 == name }
    }
    return items
  }

  /// Up to `limit` requests: while several principals wait (or `oneEach`: others wait
  /// elsewhere), one of each, in turn, each principal's connections in turn; while one alone
  /// waits, as many of its as `limit` (its requests wait behind nobody's).
  @inlinable public mutating func take(upTo limit: Int, oneEach: Bool = false) -> [Item] {
    var taken: [Item] = []
    let rounds = oneEach || waitingPrincipals > 1 ? 1 : limit
    for _ in 0..<rounds {
      var served = 0
      for name in order where taken.count < limit {
        guard let item = takeOne(of: name) else { continue }
        taken.append(item)
        served += 1
      }
      if served == 0 || taken.count >= limit { break }
    }
    return taken
  }

  /// The next request of principal `name` (from its next connection), which then goes to
  /// the back of both turns.
  @inlinable mutating func takeOne(of name: String) -> Item? {
    guard let source = principals[name]?.order.first,
      principals[name]!.sources[source]?.isEmpty == false
    else { return nil }
    let item = principals[name]!.sources[source]!.removeFirst()
    principals[name]!.order.removeFirst()
    if principals[name]!.sources[source]!.isEmpty {
      principals[name]!.sources[source] = nil
      principalOf[source] = nil
    } else {
      principals[name]!.order.append(source)
    }
    principals[name]!.count -= 1
    waitingCount -= 1
    let left = principals[name]!.count
    if left == 0 { principals[name] = nil }
    if let index = order.firstIndex(of: name) {
      order.remove(at: index)
      if left > 0 { order.append(name) }
    }
    return item
  }
}
