import Foundation

/// Apple's calls run with a deadline, because some can stall: `AAAttribution.attributionToken()` is synchronous and
/// has been seen to hang, and an awaited SKAdNetwork or AdAttributionKit update may never return when StoreKit's
/// service fails. None of them can be cancelled, so a call past its deadline is left to finish on its own and its late
/// result is dropped; the SDK goes on as if it had failed.
enum AppleCall {
    /// The result of `operation`, or nil when `seconds` pass first. A synchronous call runs on a dispatch queue, never
    /// on the SDK's actor or Swift's cooperative threads, which a hung call would hold for good.
    static func blocking<T: Sendable>(within seconds: Double, _ operation: @escaping @Sendable () throws -> T) async -> Result<T, any Error>? {
        await race(seconds) { finish in
            // A queue of its own, so a call that hangs holds a thread of its own, not one of the few the global queues share.
            DispatchQueue(label: "linkrunway.apple-call", qos: .utility).async { finish(Result { try operation() }) }
        }
    }

    /// The result of the asynchronous `operation`, or nil when `seconds` pass first (the operation goes on, detached).
    static func awaiting<T: Sendable>(within seconds: Double, _ operation: @escaping @Sendable () async throws -> T) async -> Result<T, any Error>? {
        await race(seconds) { finish in
            Task.detached {
                do { finish(.success(try await operation())) } catch { finish(.failure(error)) }
            }
        }
    }

    private static let timers = DispatchQueue(label: "linkrunway.apple-call-deadlines")

    /// Starts the call and a timer; whichever ends first answers, once.
    private static func race<T: Sendable>(_ seconds: Double,
                                          start: (@escaping @Sendable (Result<T, any Error>) -> Void) -> Void) async -> Result<T, any Error>? {
        let answer = OneAnswer<Result<T, any Error>?>()
        return await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, any Error>?, Never>) in
            answer.waiting(continuation)
            start { answer.give($0) }
            // The deadline fires on a queue of its own too: busy global queues would make it late.
            timers.asyncAfter(deadline: .now() + max(seconds, 0)) { answer.give(nil) }
        }
    }
}

/// A continuation resumed by the first of several answers; the others are dropped.
private final class OneAnswer<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, Never>?

    func waiting(_ continuation: CheckedContinuation<T, Never>) {
        lock.withLock { self.continuation = continuation }
    }

    func give(_ value: T) {
        let waiting: CheckedContinuation<T, Never>? = lock.withLock {
            defer { continuation = nil }
            return continuation
        }
        waiting?.resume(returning: value)
    }
}
