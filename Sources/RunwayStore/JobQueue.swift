import Foundation

/// A blocking queue handed from async callers to the threads that own connections.
final class JobQueue<Job>: @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [Job] = []
    private var closed = false

    /// Adds a job; false when the queue is closed.
    func push(_ job: Job) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !closed else { return false }
        jobs.append(job)
        condition.signal()
        return true
    }

    /// Waits for at least one job and takes up to `limit`; nil once the queue is closed and empty. `after` runs once a
    /// job is there, before the jobs are taken (and more may come meanwhile); with `gather`, the queue then waits up to
    /// that long for `gather.jobs` jobs to be there.
    func take(limit: Int, after ready: () -> Void = {}, gather: (jobs: Int, seconds: Double)? = nil) -> [Job]? {
        condition.lock()
        while jobs.isEmpty && !closed { condition.wait() }
        condition.unlock()
        ready()
        condition.lock()
        defer { condition.unlock() }
        while jobs.isEmpty && !closed { condition.wait() }
        if let gather, jobs.count < gather.jobs, !closed {
            let deadline = Date(timeIntervalSinceNow: gather.seconds)
            while jobs.count < gather.jobs && !closed && condition.wait(until: deadline) {}
        }
        if jobs.isEmpty { return nil }
        let n = min(limit, jobs.count)
        let taken = Array(jobs.prefix(n))
        jobs.removeFirst(n)
        return taken
    }

    /// Jobs waiting to be taken.
    var count: Int {
        condition.lock()
        defer { condition.unlock() }
        return jobs.count
    }

    /// Refuses new jobs; the ones queued are still handed out.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}

/// Holds a closure's result between the thread that computes it and the continuation that returns it.
final class ResultBox<T>: @unchecked Sendable {
    var value: T?
}
