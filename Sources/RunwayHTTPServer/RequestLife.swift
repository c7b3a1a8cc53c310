/// The life of one request between libmicrohttpd's calls, as explicit states. The access handler tells it what came
/// (the headers, a chunk of body, the end of the body or a resumed connection) and does what it answers; it knows
/// nothing of libmicrohttpd or the server, so every transition is unit-tested (`RequestLifeTests`).
///
/// ```
/// reading ──chunk past limit──▶ tooLarge ─┐
///    │   ──budget spent───────▶ overBudget ┼─end of body──▶ answered
///    │                                     │
///    └──end of body──▶ suspended ──answer──▶ answered(afterSuspension)
/// refused early (Content-Length past the limit) ──▶ answered
/// ```
/// Calls in every other state change nothing. Only libmicrohttpd's thread for the connection moves a request.
struct RequestLife: Equatable {
    enum Phase: Equatable {
        /// The headers are in; the body (possibly empty) is being read.
        case reading
        /// The body passed the route's limit: what comes is dropped, and 413 answered once it has all come.
        case tooLarge
        /// The server's budget for buffered bodies ran out: what comes is dropped, and 503 answered once it has come.
        case overBudget
        /// A handler, or the release of a hot answer, is at work; the connection is suspended until its answer.
        case suspended
        /// The answer is queued. A request that was suspended counts as in flight until libmicrohttpd completes it.
        case answered(afterSuspension: Bool)
    }

    /// What to do with a chunk of body.
    enum ChunkAction: Equatable {
        /// Append it; its bytes were counted against the server's budget.
        case keep
        /// Drop it, and drop the body kept so far (giving its bytes back to the budget).
        case dropAll
        /// Drop it: the request was already refused.
        case drop
    }

    /// What to do on a call that brings no body.
    enum Step: Equatable {
        /// Start the handler and suspend the connection.
        case dispatch
        /// Queue the answer the handler gave (the connection was resumed for it).
        case send
        /// Queue 413 (the connection closes).
        case refuseTooLarge
        /// Queue 503 `server_busy` (the connection closes).
        case refuseBusy
        /// Nothing to do yet: a call before the answer came, or after it was queued.
        case wait
    }

    private(set) var phase: Phase
    /// The body limit of the route the request is for.
    let limit: Int
    /// Body bytes kept so far.
    private(set) var bodyBytes = 0

    /// A request whose headers are in, for a route taking at most `limit` bytes. With a `Content-Length` past it, the
    /// request is refused before a byte of the body is read: it starts answered, and the caller queues the 413 at once.
    init(limit: Int, contentLength: Int?) {
        self.limit = limit
        phase = (contentLength ?? 0) > limit ? .answered(afterSuspension: false) : .reading
    }

    /// A hot answer that waits for work it started (a redirect's durable click): suspended from its first call.
    static func held() -> RequestLife {
        var life = RequestLife(limit: 0, contentLength: nil)
        life.phase = .suspended
        return life
    }

    /// A chunk of `size` bytes came. `reserve` asks the server's budget for them and says whether it had room.
    mutating func chunk(_ size: Int, reserve: (Int) -> Bool) -> ChunkAction {
        guard phase == .reading else { return .drop }
        // `limit - bodyBytes` cannot overflow: bodyBytes never passes limit.
        if size > limit - bodyBytes {
            phase = .tooLarge
            return .dropAll
        }
        guard reserve(size) else {
            phase = .overBudget
            return .dropAll
        }
        bodyBytes += size
        return .keep
    }

    /// A call with no body came: the end of the body, or the call after a suspended connection was resumed (when
    /// `answerReady`).
    mutating func next(answerReady: Bool) -> Step {
        switch phase {
        case .reading:
            phase = .suspended
            return .dispatch
        case .tooLarge:
            phase = .answered(afterSuspension: false)
            return .refuseTooLarge
        case .overBudget:
            phase = .answered(afterSuspension: false)
            return .refuseBusy
        case .suspended:
            guard answerReady else { return .wait }
            phase = .answered(afterSuspension: true)
            return .send
        case .answered:
            return .wait
        }
    }

    /// Whether the request holds one of the server's in-flight places (taken when it was suspended, given back when
    /// libmicrohttpd completes it).
    var inFlight: Bool {
        switch phase {
        case .suspended, .answered(afterSuspension: true): return true
        case .reading, .tooLarge, .overBudget, .answered(afterSuspension: false): return false
        }
    }
}
