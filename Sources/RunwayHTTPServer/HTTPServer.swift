import CMicroHTTPD
import Foundation
import LinkRunwayAPI
import RunwayHTTP
import Synchronization

/// Serves an async responder over HTTP/1.1 with libmicrohttpd: a pool of polling threads on epoll, keep-alive,
/// connection and size limits, and handlers that run as Swift tasks while their connection is suspended, so no
/// libmicrohttpd thread ever waits for a handler.
public final class HTTPServer: @unchecked Sendable {
    public typealias Responder = @Sendable (HTTPRequest) async -> HTTPResponse
    /// Answers on libmicrohttpd's thread when it can without waiting; nil passes the request to `responder`.
    public typealias ImmediateResponder = @Sendable (HTTPRequest) -> HTTPResponse?

    public let configuration: HTTPServerConfiguration
    let responder: Responder
    let immediate: ImmediateResponder?
    let logger: Logger
    /// The application's routes: a request with a body is matched once, before it is read, for its route's body limit,
    /// and handed over with the match.
    let router: Router?
    /// Body bytes buffered by requests not yet completed, against `maxBufferedBodyBytes`.
    let bufferedBodyBytes = Atomic<Int>(0)
    /// The slow-client guard (see guard.h), alive while the daemon runs.
    private(set) var guardian: UnsafeMutablePointer<lr_guard>?
    private var daemon: OpaquePointer?
    /// The reference libmicrohttpd's callbacks hold while the daemon runs: a server dropped without `shutdown` keeps
    /// serving (and leaks) instead of its callbacks reaching freed memory.
    private var daemonReference: Unmanaged<HTTPServer>?
    private let lifecycle = Mutex<Lifecycle>(.idle)
    /// Requests handed to a task whose connection has not completed yet.
    let inFlight = Atomic<Int>(0)
    let shuttingDown = Atomic<Bool>(false)
    /// Suspended requests, for the deadline watchdog and for shutdown.
    let suspended = Mutex<[ObjectIdentifier: RequestState]>([:])
    private var watchdog: DispatchSourceTimer?
    /// Requests whose handler has started and whose connection has not completed yet.
    public var requestsInFlight: Int { inFlight.load(ordering: .relaxed) }
    /// Whether `shutdown` has begun.
    public var isStopping: Bool { shuttingDown.load(ordering: .acquiring) }

    /// The port actually bound (differs from the configuration when it asked for 0).
    public private(set) var port: UInt16 = 0

    enum Lifecycle { case idle, running, stopped }

    public init(configuration: HTTPServerConfiguration, logger: Logger, router: Router? = nil,
                immediate: ImmediateResponder? = nil, responder: @escaping Responder) {
        self.configuration = configuration
        self.logger = logger
        self.router = router
        self.immediate = immediate
        self.responder = responder
    }

    /// Connections the slow-client guard has closed so far.
    public var connectionsShed: UInt64 { guardian.map { lr_guard_shed_count($0) } ?? 0 }

    /// Binds and starts serving. Throws when the address is invalid or taken.
    public func start() throws {
        try lifecycle.withLock { state in
            guard case .idle = state else { throw HTTPServerError.alreadyStarted }
            // TURBO makes libmicrohttpd read and write optimistically before asking epoll; measured here it lifts
            // keep-alive throughput by a third, and the transport tests (timeouts, 413, graceful stop) pass with it.
            let flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue
                | MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_ERROR_LOG.rawValue | MHD_USE_TURBO.rawValue
            let guardian = lr_guard_create(UInt32(max(64, configuration.maxConnections + 64)),
                                           UInt32(configuration.headerDeadlineSeconds * 1000), UInt32(configuration.bodyGraceSeconds * 1000),
                                           UInt32(configuration.minBodyBytesPerSecond), UInt32(configuration.maxPendingConnections))
            let started: OpaquePointer? = configuration.host.withCString { host in
                var settings = lr_mhd_settings(
                    flags: UInt32(flags), host: host, port: configuration.port,
                    thread_pool_size: UInt32(max(1, configuration.threads)),
                    connection_limit: UInt32(configuration.maxConnections),
                    per_ip_connection_limit: UInt32(configuration.maxConnectionsPerAddress),
                    connection_timeout_seconds: UInt32(configuration.connectionTimeoutSeconds),
                    connection_memory_limit: configuration.maxHeaderBytes,
                    listen_backlog: 1024, guard: guardian)
                let me = Unmanaged.passUnretained(self).toOpaque()
                return lr_mhd_start(&settings, accessHandler, me, completedHandler, me)
            }
            guard let started else {
                lr_guard_destroy(guardian)
                throw HTTPServerError.cannotListen("cannot listen on \(configuration.host):\(configuration.port) (address invalid or in use)")
            }
            daemon = started
            daemonReference = Unmanaged.passRetained(self)
            self.guardian = guardian
            port = lr_mhd_bound_port(started)
            state = .running
        }
        startWatchdog()
    }

    /// Stops accepting connections, lets requests in flight finish for up to `grace`, answers the rest with 503,
    /// then closes every connection. Safe to call more than once.
    public func shutdown(grace: Duration = .seconds(10)) async {
        let daemon: OpaquePointer? = lifecycle.withLock { state in
            guard case .running = state else { return nil }
            state = .stopped
            return self.daemon
        }
        guard let daemon else { return }
        shuttingDown.store(true, ordering: .releasing)
        let listener = MHD_quiesce_daemon(daemon)
        let deadline = ContinuousClock.now + grace
        while inFlight.load(ordering: .acquiring) > 0 && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        let stragglers = suspended.withLock { Array($0.values) }
        for state in stragglers {
            finish(state, with: HTTPError.unavailable(.shuttingDown, "the server is shutting down; retry").response)
        }
        let hardDeadline = ContinuousClock.now + .seconds(2)
        while inFlight.load(ordering: .acquiring) > 0 && ContinuousClock.now < hardDeadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        watchdog?.cancel()
        MHD_stop_daemon(daemon)
        if listener >= 0 { close(listener) }
        self.daemon = nil
        lr_guard_destroy(guardian)
        guardian = nil
        daemonReference?.release()
        daemonReference = nil
    }

    // MARK: Handler tasks

    /// Starts the handler for a complete request and suspends its connection until the answer is ready.
    func dispatch(_ state: RequestState, _ request: HTTPRequest) {
        suspend(state)
        let responder = self.responder
        Task {
            let response = await responder(request)
            self.finish(state, with: response)
        }
    }

    /// Suspends the connection of an immediate answer that waits for its release, then starts the release; the
    /// response it gives goes out like a handler's.
    func hold(_ state: RequestState, _ response: HTTPResponse, release: ResponseRelease) {
        suspend(state)
        release.run(response) { final in self.finish(state, with: final) }
    }

    /// Counts `size` more body bytes against `maxBufferedBodyBytes`; false (and nothing counted) when they do not fit.
    func reserveBody(_ size: Int) -> Bool {
        if bufferedBodyBytes.add(size, ordering: .relaxed).newValue <= configuration.maxBufferedBodyBytes { return true }
        bufferedBodyBytes.subtract(size, ordering: .relaxed)
        return false
    }

    /// Registers a suspended request's connection and suspends it (the watchdog and shutdown see it from here).
    private func suspend(_ state: RequestState) {
        state.deadline = .now + .milliseconds(Int64(configuration.requestTimeoutSeconds * 1000))
        inFlight.add(1, ordering: .relaxed)
        suspended.withLock { $0[ObjectIdentifier(state)] = state }
        MHD_suspend_connection(state.connection)
    }

    /// Hands a response to a suspended connection once (the handler and the watchdog may race) and resumes it.
    func finish(_ state: RequestState, with response: HTTPResponse) {
        guard state.offer(response) else { return }
        suspended.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(state)) }
        MHD_resume_connection(state.connection)
    }

    private func startWatchdog() {
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "linkrunway-http-watchdog"))
        timer.schedule(deadline: .now() + 0.25, repeating: 0.25)
        timer.setEventHandler { [weak self] in
            guard let self else { return }
            let now = ContinuousClock.now
            let late = self.suspended.withLock { $0.values.filter { $0.deadline < now } }
            for state in late {
                self.logger.warn("request timed out", ["method": .string(state.method)])
                self.finish(state, with: HTTPError.unavailable(.requestTimeout, "the request took too long; retry").response)
            }
        }
        timer.resume()
        watchdog = timer
    }
}

public enum HTTPServerError: Error, CustomStringConvertible {
    case alreadyStarted
    case cannotListen(String)

    public var description: String {
        switch self {
        case .alreadyStarted: return "the server was already started"
        case .cannotListen(let message): return message
        }
    }
}
