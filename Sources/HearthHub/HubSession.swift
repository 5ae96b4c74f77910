import Foundation
import HearthSQLite
import HearthTransport
import HearthWire

/// One `Hub.run()`: the request loop. Takes what arrived, decides what runs now and what
/// waits for the writer, and answers; the transactions themselves are the executor's, the
/// registrations the registrar's, the feed and the bus the change feed's. Lives on the hub's
/// thread only.
struct HubSession {
  /// A request waiting for the writer, held by a transaction in several messages.
  enum Work {
    case transaction(client: ReplyRoute, request: TransactionRequest)
    case register(client: ReplyRoute, request: RegisterRequest)
    case sync(client: ReplyRoute, request: SyncRequest)
  }

  let hub: Hub
  let router: BusSocket
  /// The request stream's connections, served beside the router.
  let streams: RequestStreams
  /// Replies and events, held until the commits before them are durable.
  var outbox = HubOutbox()
  var feed: ChangeFeed
  var executor: TransactionExecutor
  /// Which plugin each connection's key is (reread when the keyring changes).
  var identities: Identities
  var queue: [Work] = []
  /// When (on the hub's clock) the last heartbeat went out and the last pruning round began.
  var lastHeartbeat: Duration = .zero
  var lastPrune: Duration = .zero
  /// What a pruning still has to go through, between two turns of the loop.
  var pruning: (feed: Bool, requests: Bool)?
  /// `sync` requests, and those waiting for the sync service.
  var syncRequests: SyncRequests
  /// Requests received on the ZeroMQ socket and not yet served, by principal and
  /// connection (the request stream keeps its own).
  var routerWaiting = FairQueue<Data, ArrivedRequest>()

  /// The most one-message transactions one COMMIT carries.
  static let maximumGroup = 64
  /// How long one turn serves requests before it hands back the rest of its burst.
  static let turnBudget: Duration = .milliseconds(5)
  /// The most requests of one ZeroMQ connection waiting to be served; past it, `busy`.
  static let maximumWaitingPerConnection = 32

  init(hub: Hub, router: BusSocket, streams: RequestStreams, publisher: BusSocket) {
    self.hub = hub
    self.router = router
    self.streams = streams
    feed = ChangeFeed(hub: hub, publisher: publisher)
    executor = TransactionExecutor(database: hub.database)
    syncRequests = SyncRequests(
      sync: hub.sync, database: hub.database, wait: hub.configuration.syncWait)
    identities = Identities(keyring: hub.configuration.paths.keyring)
  }

  var configuration: HubConfiguration { hub.configuration }

  // MARK: - The loop

  /// One turn: what became durable, the silent transaction once the wait is over (a
  /// message that comes after its transaction's timeout finds it expired), what arrived
  /// within `timeout`, the queue, a batch of pruning and the heartbeat when they are due.
  /// False once the hub's stop bell has rung (`Hub.stop()`): the loop ends after this turn.
  mutating func serveOnce(waitingAtMost timeout: Duration) throws -> Bool {
    // The keys' watch, when there is one, is polled last of the bells (-1: none; poll(2)
    // leaves a negative descriptor alone).
    let bells = [
      hub.sync.jobs.bell.descriptor, hub.syncer.bell.descriptor, hub.stopBell.descriptor,
      identities.descriptor ?? -1,
    ]
    let (readable, ready) = try router.wait(
      orDescriptors: bells.map { ($0, .readable) } + streams.descriptors(),
      timeout: streams.hasRequests || !routerWaiting.isEmpty ? .zero : timeout)
    if !ready[1].isEmpty {
      hub.syncer.bell.clear()
      try sendDurable()
    }
    if !ready[0].isEmpty {
      hub.sync.jobs.bell.clear()
      runSyncJobs()
    }
    // The stop bell is never cleared: every later wait returns at once.
    let isStopping = !ready[2].isEmpty
    // The keys are read again when their watch says they changed; with no watch, they are
    // looked at (one `stat`) when something has come.
    let keysChanged = !ready[3].isEmpty
    if keysChanged || readable || ready.dropFirst(bells.count).contains(where: { !$0.isEmpty }) {
      identities.refresh(watchFired: keysChanged)
    }
    let known = identities
    let principal = { (userID: String?) in
      userID.flatMap { known.plugin($0) } ?? RequestStreams.anonymous
    }
    streams.serve(Array(ready.dropFirst(bells.count)), principal: { principal($0) })
    if readable { try receiveFromRouter(principal: principal) }
    // What has arrived, on the stream and the router, taken in turn by principal (while
    // several wait, one request of each: see `FairQueue`): one-message transactions among
    // it share one COMMIT (group commit), each in its own savepoint.
    let oneEach = streams.waitingPrincipals + routerWaiting.waitingPrincipals > 1
    let burst =
      streams.take(upTo: Self.maximumGroup, oneEach: oneEach)
      + routerWaiting.take(upTo: Self.maximumGroup, oneEach: oneEach)
    executor.expire(after: configuration.transactionTimeout, now: hub.clock.elapsed)
    if !burst.isEmpty {
      let turnStart = hub.clock.elapsed
      let requests = lightFirst(parse(burst))
      var group: [(client: ReplyRoute, request: TransactionRequest)] = []
      var index = 0
      while index < requests.count {
        let (message, parsed) = requests[index]
        index += 1
        // One-message writes share a COMMIT; a transaction that returns rows commits alone
        // (its rows may be large, and a group's replies all wait for its COMMIT).
        if executor.open == nil, queue.isEmpty, case .success(.transaction(let request))? = parsed,
          request.isOneMessage, !request.returnsRows,
          !group.contains(where: { $0.request.id == request.id })
        {
          group.append((message.route, request))
          continue
        }
        commit(group)
        group.removeAll()
        dispatch(message, parsed)
        // A turn that has taken its time hands back what it did not reach: the next turn
        // serves every principal waiting, so nobody waits behind a long burst.
        if index < requests.count,
          hub.clock.elapsed - turnStart > Self.turnBudget
        {
          putBack(requests[index...].map(\.message), principal: principal)
          break
        }
      }
      commit(group)
    }
    let now = hub.clock.elapsed
    drainQueue()
    runSyncJobs()
    answerSyncRequests()
    if executor.open == nil, pruning != nil || now - lastPrune >= configuration.pruneInterval {
      pruneOnce(now)
    }
    if now - lastHeartbeat >= configuration.heartbeatInterval {
      lastHeartbeat = now
      feed.publishHeartbeat(at: hub.millisecondsNow())
    }
    try syncHereIfAlone()
    return !isStopping
  }

  /// Moves what the ZeroMQ socket has (up to a group's worth a turn) to `routerWaiting`.
  /// A connection with its most waiting gets `busy` for the next: libzmq queues a
  /// connection's messages without bound in number, so the bound is kept here.
  mutating func receiveFromRouter(principal: (String?) -> String) throws {
    for _ in 0..<Self.maximumGroup {
      guard let received = try router.receiveMessage(timeout: .zero) else { return }
      guard let message = ArrivedRequest(router: received),
        case .router(let identity) = message.route
      else { continue }
      guard routerWaiting.count(of: identity) < Self.maximumWaitingPerConnection else {
        let id =
          message.frames.count == 1
          ? (try? WireRequest.parse(message.frames[0], limits: configuration.limits).get())?.id
          : nil
        reply(
          message.route,
          ErrorReply(
            id: id, code: .busy,
            message: "this connection has \(Self.maximumWaitingPerConnection) requests waiting "
              + "at the hub, its most; wait for their replies"))
        continue
      }
      routerWaiting.append(message, principal: principal(message.userID), source: identity)
    }
  }

  typealias Parsed = (message: ArrivedRequest, parsed: Result<WireRequest, ErrorReply>?)

  /// Each frame parsed (nil: a message of other than one frame) and checked against its
  /// connection's key.
  mutating func parse(_ messages: [ArrivedRequest]) -> [Parsed] {
    messages.map { message in
      let frames = message.frames
      var parsed =
        frames.count == 1 ? WireRequest.parse(frames[0], limits: configuration.limits) : nil
      if case .success(let request)? = parsed,
        let refusal = identities.refusal(of: request, from: message.userID)
      {
        parsed = .failure(refusal)
      }
      return (message, parsed)
    }
  }

  /// Writes before bulky reads (transactions that return rows, `changes`): a write waits at
  /// most for the read already running. A client's own requests keep their order: once one
  /// of its requests is put back, the ones after it follow it.
  func lightFirst(_ requests: [Parsed]) -> [Parsed] {
    var (light, heavy) = ([Parsed](), [Parsed]())
    var deferred = Set<ReplyRoute>()
    for request in requests {
      let client = request.message.route
      let bulky: Bool =
        switch request.parsed {
        case .success(.transaction(let transaction))?: transaction.returnsRows
        case .success(.changes)?: true
        default: false
        }
      if bulky || deferred.contains(client) {
        deferred.insert(client)
        heavy.append(request)
      } else {
        light.append(request)
      }
    }
    return light + heavy
  }

  /// Hands requests taken and not served back to their queues, in order.
  mutating func putBack(
    _ messages: [ArrivedRequest], principal: (String?) -> String
  ) {
    streams.putBack(messages.filter { if case .stream = $0.route { true } else { false } })
    for message in messages.reversed() {
      guard case .router(let identity) = message.route else { continue }
      routerWaiting.putBack(message, principal: principal(message.userID), source: identity)
    }
  }

  /// Answers one request: `parsed` is its frame parsed, nil when it came as other than one
  /// frame.
  mutating func dispatch(_ message: ArrivedRequest, _ parsed: Result<WireRequest, ErrorReply>?) {
    let client = message.route
    guard let parsed else {
      return reply(
        client,
        ErrorReply(
          id: nil, code: .malformed,
          message: "a request is one frame of JSON (got \(message.frames.count) frames)"))
    }
    switch parsed {
    case .failure(let refusal):
      reply(client, refusal)
    case .success(.hello(let request)):
      reply(
        client,
        WelcomeReply(
          id: request.id, hub: hub.instanceID, seq: hub.lastSequence, wal: hub.walStatus,
          limits: HubLimits(configuration.limits),
          connections: streams.status(
            files: OpenFiles.now(), waitingElsewhere: routerWaiting.count + queue.count),
          locks: request.locks == true ? hub.locks.current() : nil))
    case .success(.register(let request)):
      if executor.open == nil {
        register(client: client, request: request)
      } else {
        enqueue(.register(client: client, request: request), client: client, id: request.id)
      }
    case .success(.transaction(let request)):
      transaction(client: client, request: request)
    case .success(.changes(let request)):
      reply(client, feed.changes(request))
    case .success(.cursor(let request)):
      let answer = feed.cursor(request)
      reply(client, answer)
    case .success(.sync(let request)):
      if executor.open == nil {
        sync(client: client, request: request)
      } else {
        enqueue(.sync(client: client, request: request), client: client, id: request.id)
      }
    }
  }

  mutating func enqueue(_ work: Work, client: ReplyRoute, id: String) {
    guard queue.count < configuration.maximumQueuedRequests else {
      return reply(
        client,
        ErrorReply(id: id, code: .busy, message: "too many requests wait for the writer; retry"))
    }
    queue.append(work)
  }

  /// Runs what waited for the writer, in order; the requests of a stream connection that
  /// has closed meanwhile are dropped unrun (nobody would hear their outcome).
  mutating func drainQueue() {
    while executor.open == nil, !queue.isEmpty {
      let work = queue.removeFirst()
      guard streams.isConnected(work.client) else { continue }
      switch work {
      case .transaction(let client, let request): transaction(client: client, request: request)
      case .register(let client, let request): register(client: client, request: request)
      case .sync(let client, let request): sync(client: client, request: request)
      }
    }
  }

  /// One batch of pruning (the first of a round saves the cursors): requests wait for one
  /// small commit at most.
  mutating func pruneOnce(_ now: Duration) {
    do {
      if pruning == nil {
        lastPrune = now
        try feed.saveCursors()
      }
      let more = try hub.prune(requests: pruning?.requests ?? true)
      pruning = more.feed || more.requests ? more : nil
    } catch {
      pruning = nil
      // A failed prune keeps entries longer; it is retried at the next interval.
      Logger(label: "hearthd").warning("pruning the feed failed: \(error)")
    }
  }

  /// Rolls back what is open and refuses what waits; the clients retry against the next hub.
  /// What was committed is made durable and acknowledged first.
  mutating func finish() throws {
    executor.rollbackOpen()
    try syncHereIfAlone()
    let deadline = hub.clock.elapsed + .seconds(10)
    while !outbox.isEmpty, hub.clock.elapsed < deadline {
      hub.syncer.bell.wait(timeout: .milliseconds(100))
      try sendDurable()
    }
    hub.sync.jobs.close()
    for work in queue {
      let (client, id) =
        switch work {
        case .transaction(let client, let request): (client, request.id)
        case .register(let client, let request): (client, request.id)
        case .sync(let client, let request): (client, request.id)
        }
      reply(client, ErrorReply(id: id, code: .busy, message: "the hub is stopping; retry"))
    }
    queue.removeAll()
    for (client, refusal) in syncRequests.refuseAll("the hub is stopping; retry") {
      reply(client, refusal)
    }
    try feed.saveCursors()
  }

  // MARK: - Writes

  /// One message of a transaction: a lone one-message commit is a group of one; the rest is
  /// the executor's (or waits for the open transaction to end).
  mutating func transaction(client: ReplyRoute, request: TransactionRequest) {
    if executor.open == nil, request.isOneMessage { return commit([(client, request)]) }
    switch executor.receive(
      request, from: client, feed: feed, seq: hub.committedSequence + 1, at: hub.millisecondsNow(),
      clock: hub.clock.elapsed)
    {
    case .wait:
      enqueue(.transaction(client: client, request: request), client: client, id: request.id)
    case .answer(let answer):
      reply(client, answer)
    case .committed(let committed):
      announce(
        [committed.event].compactMap { $0 }, by: [client], replies: [(client, committed.body)])
    }
  }

  /// Commits one-message transactions together (see `TransactionExecutor.commit`).
  mutating func commit(_ group: [(client: ReplyRoute, request: TransactionRequest)]) {
    guard !group.isEmpty else { return }
    let outcomes = executor.commit(
      group.map(\.request), feed: feed, seq: hub.committedSequence + 1, at: hub.millisecondsNow())
    var events: [ChangeFeed.PublishedCommit] = []
    for case .committed(let committed) in outcomes {
      if let event = committed.event { events.append(event) }
    }
    if group.count > 1, !events.isEmpty { hub.countGroupCommit() }
    let replies = zip(group, outcomes).compactMap { member, outcome -> (ReplyRoute, Data)? in
      switch outcome {
      case .committed(let committed): (member.client, committed.body)
      case .failed(let error): encoded(error).map { (member.client, $0) }
      }
    }
    announce(events, by: group.map(\.client), replies: replies)
  }

  /// Registers a plugin (see `Registrar`).
  mutating func register(client: ReplyRoute, request: RegisterRequest) {
    let seq = hub.committedSequence + 1
    let now = hub.millisecondsNow()
    let outcome: Result<(RegisteredReply, ChangeFeed.PublishedCommit?), ErrorReply>
    do {
      outcome = try hub.database.inWriterDatabase { [feed] db in
        Registrar.register(request, feed: feed, sync: hub.sync, seq: seq, at: now, db)
      }
    } catch {
      outcome = .failure(ErrorReply(id: request.id, code: .internal, message: "\(error)"))
    }
    switch outcome {
    case .success(let (registered, event)):
      executor.forgetOwnership(of: request.plugin)
      announce(
        [event].compactMap { $0 }, by: [client],
        replies: encoded(registered).map { [(client, $0)] } ?? [])
    case .failure(let refusal):
      reply(client, refusal)
    }
  }

  /// After a COMMIT: the next sequence numbers are taken by `events`; the writers get
  /// `replies`. The replies go out, and then the events on the bus, once the commit is
  /// durable (`sendDurable`) — the writers first, so that publishing never delays an
  /// acknowledgement.
  mutating func announce(
    _ events: [ChangeFeed.PublishedCommit], by writers: [ReplyRoute],
    replies: [(ReplyRoute, Data)]
  ) {
    for _ in events { hub.advanceCommittedSequence() }
    let ticket = hub.syncer.issueTicket()
    if outbox.commit(ticket: ticket, events, by: writers, now: hub.clock.elapsed) {
      hub.syncer.request(ticket)
    }
    for (client, body) in replies { send(client, body) }
    outbox.publish(events)
    // Between two commits: no client's transaction is split.
    if hub.walBound.restartIsDue {
      try? hub.database.inWriterDatabase { db in hub.walBound.checkpointIfNeeded(db) }
    }
  }

  /// Makes what was committed durable on the hub's thread when the outbox left it so (and
  /// the syncing thread is idle; else asks it), and sends what that made durable.
  mutating func syncHereIfAlone() throws {
    guard let ticket = outbox.takeSyncHere() else { return }
    if hub.syncer.syncHere(upTo: ticket) {
      try sendDurable()
    } else {
      hub.syncer.request(ticket)
    }
  }

  /// Sends what the syncer has made durable since the last time, in order; throws when the
  /// log could not be synced (nothing more is acknowledged: the hub must stop).
  mutating func sendDurable() throws {
    if let failure = hub.syncer.failure {
      throw HubError(
        "the write-ahead log could not be made durable (\(failure)); stopping without "
          + "acknowledging the commits since the last sync")
    }
    deliver(outbox.durable(upTo: hub.syncer.durable))
  }

  // MARK: - Output

  /// Sends `message` (after what the outbox holds).
  mutating func reply(_ client: ReplyRoute, _ message: any WireMessage) {
    guard let body = encoded(message) else { return }
    send(client, body)
  }

  /// A reply's JSON; nil when it does not encode (it is then not sent).
  func encoded(_ message: any WireMessage) -> Data? {
    if let error = message as? ErrorReply, error.sqlite?.code == 5 {  // SQLITE_BUSY
      hub.locks.writerWasBusy()
    }
    return try? message.encodedJSON()
  }

  /// Sends an encoded reply (after what the outbox holds).
  mutating func send(_ client: ReplyRoute, _ body: Data) {
    if let now = outbox.reply(to: client, body) { deliver([now]) }
  }

  /// Where every reply and every commit's event leaves the hub, in the outbox's order.
  func deliver(_ deliveries: [HubOutbox.Delivery]) {
    for delivery in deliveries {
      switch delivery {
      case .durable(let events):
        for event in events {
          hub.markDurable(event.event.seq)
          hub.configuration.didCommit?(event.event.seq)
        }
      case .reply(.stream(let connection), let body):
        streams.send(connection, body)
      case .reply(.router(let identity), let body):
        // A client that went away is not an error of the hub: its reply is dropped.
        try? router.send([identity, body], dontWait: true)
      case .publish(let events):
        if let service = hub.sync.service,
          events.contains(where: { hub.sync.capture.captures(any: $0.event.tables.keys) })
        {
          service.localChange()
        }
        for event in events { feed.publish(event) }
      }
    }
  }
}

extension HubSession.Work {
  var client: ReplyRoute {
    switch self {
    case .transaction(let client, _), .register(let client, _), .sync(let client, _): client
    }
  }
}

extension TransactionRequest {
  /// Whether a statement of it asks for its rows.
  var returnsRows: Bool { statements.contains { $0.rows == true } }

  /// Whether this message is a whole transaction: it begins and commits at once (and so may
  /// share a COMMIT with others).
  var isOneMessage: Bool { (part ?? 0) == 0 && end == "commit" }
}
