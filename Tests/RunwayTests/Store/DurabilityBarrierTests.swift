import Foundation
@testable import RunwayStore
import Synchronization
import Testing

/// The barrier answers a commit only once a sync that began after it has finished: what makes an acknowledged write
/// durable when COMMIT itself does not sync.
@Suite("Durability barrier")
struct DurabilityBarrierTests {
    /// Counts syncs begun and records, for each one finished, how many had begun before it.
    final class Disk: Sendable {
        let begun = Atomic<Int>(0)
        let lastFinished = Mutex<Int>(0)
        let failing = Atomic<Bool>(false)

        func sync() throws {
            let number = begun.add(1, ordering: .sequentiallyConsistent).newValue
            usleep(2_000)
            if failing.load(ordering: .sequentiallyConsistent) { throw StoreError.unavailable("the disk refused") }
            lastFinished.withLock { $0 = max($0, number) }
        }
    }

    @Test("every commit is answered only after a sync that began after it finished, and the writer waits for room")
    func answersAfterALaterSync() async throws {
        let disk = Disk()
        let barrier = DurabilityBarrier(label: "test-sync") { try disk.sync() }
        let violations = AtomicCount()
        let answered = AtomicCount()
        for _ in 0..<40 {
            barrier.awaitRoom()
            // A commit now: answered only by a sync numbered after the ones begun so far.
            let begunAtCommit = disk.begun.load(ordering: .sequentiallyConsistent)
            let jobs = (0..<3).map { _ in
                WriteJob(run: { _ in }, finish: { error in
                    if error != nil || disk.lastFinished.withLock({ $0 }) <= begunAtCommit { violations.add() }
                    answered.add()
                })
            }
            barrier.committed(jobs.map { ($0, nil) })
            usleep(UInt32.random(in: 0...3_000))
        }
        barrier.close()
        #expect(answered.value == 120)
        #expect(violations.value == 0)
        #expect(disk.begun.load(ordering: .relaxed) < 120, "a sync covers the commits made while the one before it ran")
    }

    @Test("a failed sync answers the writes it was for with the error, and a write that failed keeps its own error")
    func failedSync() async throws {
        let disk = Disk()
        disk.failing.store(true, ordering: .sequentiallyConsistent)
        let barrier = DurabilityBarrier(label: "test-sync") { try disk.sync() }
        let errors = Mutex<[String]>([])
        struct Refused: Error {}
        let record: @Sendable ((any Error)?) -> Void = { error in errors.withLock { $0.append(error.map { "\($0)" } ?? "none") } }
        barrier.committed([(WriteJob(run: { _ in }, finish: record), nil), (WriteJob(run: { _ in }, finish: record), Refused())])
        barrier.close()
        let seen = errors.withLock { $0 }
        #expect(seen.count == 2)
        #expect(seen.contains { $0.contains("the disk refused") } && seen.contains { $0.contains("Refused") })
    }
}

/// A count shared by concurrent closures.
final class AtomicCount: Sendable {
    private let count = Atomic<Int>(0)
    func add() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}
