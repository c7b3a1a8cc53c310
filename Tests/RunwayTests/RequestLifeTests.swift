@testable import RunwayHTTPServer
import Testing

/// Every transition of a request's life between libmicrohttpd's calls, and the slot that keeps it.
@Suite("Request life")
struct RequestLifeTests {
    /// A budget with `room` bytes, as `HTTPServer.reserveBody` keeps it.
    final class Budget {
        var room: Int
        init(_ room: Int) { self.room = room }
        func reserve(_ size: Int) -> Bool {
            guard size <= room else { return false }
            room -= size
            return true
        }
    }

    @Test("a body within the limit is kept, then dispatched; the answer is sent once, and later calls wait")
    func ordinary() {
        var life = RequestLife(limit: 10, contentLength: 10)
        let budget = Budget(100)
        #expect(life.phase == .reading && !life.inFlight)
        #expect(life.chunk(4, reserve: budget.reserve) == .keep)
        #expect(life.chunk(6, reserve: budget.reserve) == .keep, "exactly the limit is within it")
        #expect(life.bodyBytes == 10 && budget.room == 90)
        #expect(life.next(answerReady: false) == .dispatch)
        #expect(life.phase == .suspended && life.inFlight)
        #expect(life.next(answerReady: false) == .wait, "a call before the answer came")
        #expect(life.chunk(1, reserve: budget.reserve) == .drop, "no body is read once the handler runs")
        #expect(life.next(answerReady: true) == .send)
        #expect(life.phase == .answered(afterSuspension: true) && life.inFlight, "in flight until libmicrohttpd completes it")
        #expect(life.next(answerReady: true) == .wait, "sent once")
        #expect(life.chunk(1, reserve: budget.reserve) == .drop)
    }

    @Test("a request with no body is dispatched on its first call without one")
    func noBody() {
        var life = RequestLife(limit: 0, contentLength: nil)
        #expect(life.next(answerReady: false) == .dispatch)
        #expect(life.phase == .suspended)
    }

    @Test("a Content-Length past the limit is refused before the body: answered, not in flight, the rest dropped")
    func refusedOnHeaders() {
        var life = RequestLife(limit: 10, contentLength: 11)
        #expect(life.phase == .answered(afterSuspension: false) && !life.inFlight)
        #expect(life.chunk(5, reserve: { _ in Issue.record("no budget asked"); return true }) == .drop)
        #expect(life.next(answerReady: false) == .wait, "the 413 was queued on the headers")
        #expect(RequestLife(limit: 10, contentLength: 10).phase == .reading)
    }

    @Test("a body that grows past the limit drops what was kept and answers 413 once it has all come")
    func tooLarge() {
        var life = RequestLife(limit: 10, contentLength: nil)
        let budget = Budget(100)
        #expect(life.chunk(8, reserve: budget.reserve) == .keep)
        #expect(life.chunk(3, reserve: budget.reserve) == .dropAll)
        #expect(life.phase == .tooLarge && budget.room == 92, "the chunk past the limit is never counted")
        #expect(life.chunk(Int.max, reserve: budget.reserve) == .drop)
        var huge = RequestLife(limit: 10, contentLength: nil)
        #expect(huge.chunk(Int.max, reserve: budget.reserve) == .dropAll && huge.phase == .tooLarge, "a huge chunk cannot overflow the count")
        #expect(life.next(answerReady: false) == .refuseTooLarge)
        #expect(life.phase == .answered(afterSuspension: false) && !life.inFlight)
        #expect(life.next(answerReady: false) == .wait)
    }

    @Test("a chunk past the server's budget drops the body and answers 503 once it has come")
    func overBudget() {
        var life = RequestLife(limit: 100, contentLength: nil)
        let budget = Budget(5)
        #expect(life.chunk(5, reserve: budget.reserve) == .keep)
        #expect(life.chunk(1, reserve: budget.reserve) == .dropAll)
        #expect(life.phase == .overBudget)
        #expect(life.chunk(1, reserve: budget.reserve) == .drop)
        #expect(life.next(answerReady: false) == .refuseBusy)
        #expect(life.phase == .answered(afterSuspension: false) && !life.inFlight)
    }

    @Test("a held hot answer starts suspended, and is sent when its release gives the answer")
    func held() {
        var life = RequestLife.held()
        #expect(life.phase == .suspended && life.inFlight)
        #expect(life.next(answerReady: false) == .wait)
        #expect(life.next(answerReady: true) == .send)
        #expect(life.phase == .answered(afterSuspension: true))
    }

    @Test("the slot keeps a hot candidate without state, and a tracked state alive until it is taken, once")
    func slot() {
        var pointer: UnsafeMutableRawPointer?
        weak var watched: RequestState?
        withUnsafeMutablePointer(to: &pointer) { slot in
            guard case .empty = RequestSlot.read(slot) else { Issue.record("a new slot is empty"); return }
            RequestSlot.store(.hotCandidate, in: slot)
            guard case .hotCandidate = RequestSlot.read(slot) else { Issue.record("hot candidate"); return }
            guard case .hotCandidate = RequestSlot.take(slot) else { Issue.record("taken as stored"); return }
            guard case .empty = RequestSlot.read(slot) else { Issue.record("taking empties the slot"); return }

            // trap-safe: a test's own constant, never dereferenced
            let connection = OpaquePointer(bitPattern: 0x10)!
            do {
                let state = RequestState(connection: connection, method: "POST", path: "/v1/events", life: RequestLife(limit: 1, contentLength: nil))
                watched = state
                RequestSlot.store(.tracked(state), in: slot)
            }
            #expect(watched != nil, "the slot holds the state with no other owner")
            guard case .tracked(let read) = RequestSlot.read(slot), read === watched else { Issue.record("tracked"); return }
            guard case .tracked = RequestSlot.take(slot) else { Issue.record("taken"); return }
            guard case .empty = RequestSlot.take(slot) else { Issue.record("taken once"); return }
        }
        #expect(watched == nil, "taking gave the slot's reference back: the state is freed")
    }
}
