import Foundation

/// Where committed writes wait until they are on disk, for a backend whose COMMIT does not wait for the disk itself
/// (SQLite in WAL mode at `synchronous=NORMAL`, whose WAL is synced here instead). One thread syncs as often as the disk
/// allows and then answers every write committed before that sync began; the writer meanwhile goes on with the next
/// group commit. So the disk's flush latency no longer limits how many commits a second one writer makes, and each
/// sync covers every commit made while the one before it ran. A write is answered only after a sync that began after
/// its COMMIT, so an acknowledged write is as durable as if COMMIT had synced it.
final class DurabilityBarrier: @unchecked Sendable {
    /// Makes everything committed so far durable; throws when the disk refused.
    typealias Sync = () throws -> Void

    private let sync: Sync
    private let observer: (any StoreObserver)?
    private let condition = NSCondition()
    private var waiting: [(WriteJob, (any Error)?)] = []
    private var closed = false
    private let stopped = DispatchGroup()

    init(label: String, observer: (any StoreObserver)? = nil, sync: @escaping Sync) {
        self.sync = sync
        self.observer = observer
        stopped.enter()
        let thread = Thread { [self] in
            Thread.current.name = label
            run()
            stopped.leave()
        }
        thread.start()
    }

    /// Hands over the answers of a group commit that has just been made (nil: the job's changes were committed).
    func committed(_ answers: [(WriteJob, (any Error)?)]) {
        condition.lock()
        waiting.append(contentsOf: answers)
        condition.broadcast()
        condition.unlock()
    }

    /// Returns once every commit handed over has been taken into a sync. The writer waits here before it takes its next
    /// batch while rows arrive in numbers: a write queued while a sync runs could not be answered before the next sync
    /// anyway, so committing it at once would only make commits smaller and more of them (each rewrites the pages it
    /// touched). Waiting, the writes that arrive during one sync share one commit.
    func awaitRoom() {
        condition.lock()
        while !waiting.isEmpty && !closed { condition.wait() }
        condition.unlock()
    }

    /// Syncs on the caller's thread (after an exclusive job, which manages its own transactions).
    func syncNow() throws { try sync() }

    /// Answers what is waiting and stops the thread.
    func close() {
        condition.lock()
        closed = true
        condition.signal()
        condition.unlock()
        stopped.wait()
    }

    private func run() {
        while true {
            condition.lock()
            while waiting.isEmpty && !closed { condition.wait() }
            let answers = waiting
            waiting.removeAll(keepingCapacity: true)
            let done = closed && answers.isEmpty
            condition.broadcast()
            condition.unlock()
            if done { return }
            var failure: (any Error)?
            let started = DispatchTime.now().uptimeNanoseconds
            do {
                try sync()
            } catch {
                failure = error
            }
            observer?.didSync(writes: answers.count, seconds: Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9)
            for (job, error) in answers { job.finish?(error ?? failure) }
        }
    }
}
