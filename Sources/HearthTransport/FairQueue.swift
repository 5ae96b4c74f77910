/// Requests waiting for the hub's thread, kept apart by who sent them: by principal (a
/// plugin, or every key of no plugin together) and, within one, by connection. `take` serves
/// the principals in turn, and each principal's connections in turn, so that one client's
/// backlog delays another's request by at most one request of its own per turn.
///
/// A connection's requests leave with it (`remove(source:)`): a client that has gone is
/// not answered, so its requests are not run.
public struct FairQueue<Source: Hashable, Item> {
  private struct Principal {
    var sources: [Source: [Item]] = [:]
    /// The sources with items, in the order they are served.
    var order: [Source] = []
    var count = 0
  }

  private var principals: [String: Principal] = [:]
  /// The principals with items, in the order they are served next.
  private var order: [String] = []
  private var principalOf: [Source: String] = [:]
  public private(set) var count = 0

  public init() {}

  public var isEmpty: Bool { count == 0 }

  /// How many principals have requests waiting.
  public var waitingPrincipals: Int { order.count }

  /// How many of `source`'s requests wait.
  public func count(of source: Source) -> Int {
    guard let name = principalOf[source] else { return 0 }
    return principals[name]?.sources[source]?.count ?? 0
  }

  /// How many of `principal`'s requests wait.
  public func count(ofPrincipal principal: String) -> Int { principals[principal]?.count ?? 0 }

  // Every change below is made in place (`principals[name]!…`): a copy of a principal's
  // entry taken out and written back would copy its queues on each request.

  public mutating func append(_ item: Item, principal: String, source: Source) {
    insert(item, principal: principal, source: source, first: false)
  }

  /// Puts back a request taken and not served, first of its connection's (a turn that ran
  /// out of time hands back what it did not reach, last first). Its principal keeps its
  /// place in the turn, or goes to the back when it had nothing left waiting.
  public mutating func putBack(_ item: Item, principal: String, source: Source) {
    insert(item, principal: principal, source: source, first: true)
  }

  private mutating func insert(_ item: Item, principal: String, source: Source, first: Bool) {
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
    count += 1
  }

  /// Forgets `source`'s requests; returns them.
  @discardableResult
  public mutating func remove(source: Source) -> [Item] {
    guard let name = principalOf.removeValue(forKey: source),
      let items = principals[name]?.sources.removeValue(forKey: source)
    else { return [] }
    principals[name]!.order.removeAll { $0 == source }
    principals[name]!.count -= items.count
    count -= items.count
    if principals[name]!.count == 0 {
      principals[name] = nil
      order.removeAll { $0 == name }
    }
    return items
  }

  /// Up to `limit` requests: while several principals wait (or `oneEach`: others wait
  /// elsewhere), one of each, in turn, each principal's connections in turn; while one alone
  /// waits, as many of its as `limit` (its requests wait behind nobody's).
  public mutating func take(upTo limit: Int, oneEach: Bool = false) -> [Item] {
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
  private mutating func takeOne(of name: String) -> Item? {
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
    count -= 1
    let left = principals[name]!.count
    if left == 0 { principals[name] = nil }
    if let index = order.firstIndex(of: name) {
      order.remove(at: index)
      if left > 0 { order.append(name) }
    }
    return item
  }
}
