import Synchronization

/// Work that runs for the life of the server beside its requests: a queue drained, a pass repeated. A capability
/// declares its own (`Capability.workers`); the server runs them all in one `ServiceGroup`.
package protocol Service: Sendable {
    /// What the log calls it.
    var name: String { get }
    /// Runs until its task is cancelled, then returns promptly; it handles its own failures (logs them, tries again).
    func run() async
}

/// Services, each in a task of its own, started in the order given and stopped in the reverse order: each is
/// cancelled and awaited before the one started before it, so a service can rely on those started earlier.
package final class ServiceGroup: Sendable {
    private struct Running: Sendable {
        let name: String
        let task: Task<Void, Never>
    }

    private let running: Mutex<[Running]>

    /// Starts every service at once.
    package init(_ services: [any Service]) {
        running = Mutex(services.map { service in Running(name: service.name, task: Task { await service.run() }) })
    }

    /// The names of the services still running, in the order they started.
    package var names: [String] { running.withLock { $0.map(\.name) } }

    /// Stops every service, the last started first; returns when all have returned. A second call finds none.
    package func stop() async {
        let stopping = running.withLock { running in
            defer { running = [] }
            return running
        }
        for service in stopping.reversed() {
            service.task.cancel()
            await service.task.value
        }
    }
}
