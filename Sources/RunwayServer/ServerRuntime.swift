import AppleFormats
import Foundation
import LinkRunwayAPI
import RunwayCapabilities
import RunwayConsole
import RunwayCrypto
import RunwayHTTP
import RunwayHTTPServer
import RunwayKit
import RunwayStore

/// A running server: store opened and migrated, first-start bootstrap done, HTTP listening, workers running.
public final class ServerRuntime: Sendable {
    public let configuration: ServerConfiguration
    public let services: ServerServices
    public let application: HTTPApplication
    public let bootstrap: Bootstrap.Result?
    private let http: HTTPServer
    private let workers: ServiceGroup

    /// The bound port (useful when the configuration asked for 0).
    public var port: UInt16 { http.port }

    private init(configuration: ServerConfiguration, composition: ServerComposition, bootstrap: Bootstrap.Result?, http: HTTPServer,
                 sealPending: Bool, yearsPending: Bool) {
        self.configuration = configuration
        self.services = composition.services
        self.application = composition.application
        self.bootstrap = bootstrap
        self.http = http
        workers = ServiceGroup(composition.workers + [Heartbeat(services: composition.services, sealPending: sealPending, yearsPending: yearsPending)])
    }

    /// Makes the link figures' year rows if they are not yet (`YearRowsBuild`): nil while an older server runs. A
    /// failure is logged and not tried again by this process (figures are then read from months and days).
    static func buildYearRows(_ store: any Store, now: Int64, logger: Logger) async -> Int? {
        do {
            let rows = try await YearRowsBuild.run(store, now: now)
            if let rows, rows > 0 { logger.info("the link figures' year rows are made", ["rows": .number(String(rows))]) }
            return rows
        } catch {
            logger.warn("the link figures' year rows could not be made; figures are read from months and days", ["error": .string("\(error)")])
            return 0
        }
    }

    /// Opens the store, applies migrations, bootstraps an empty database and starts listening.
    public static func start(_ configuration: ServerConfiguration, clock: WallClock = .system,
                             logSink: LogSink = .standardError) async throws -> ServerRuntime {
        let logger = Logger(level: configuration.logLevel, sink: logSink)
        let metrics = MetricsRegistry()
        let store = try StoreFactory.open(configuration.database, synchronousFull: configuration.sqliteSynchronousFull,
                                          observer: StoreMetrics(metrics: metrics))
        do {
            try await StoreFactory.awaitAnswer(store, seconds: configuration.databaseWaitSeconds) { error in
                logger.warn("waiting for the database", ["seconds": .number(String(configuration.databaseWaitSeconds)),
                                                         "error": .string("\(error)")])
            }
            let applied = try await store.migrate(Schema.migrations)
            if !applied.isEmpty { logger.info("migrated", ["applied": .array(applied.map { .string($0) })]) }
            for note in try await Schema.notes(afterApplying: applied, store) { logger.warn(note) }
            if !applied.isEmpty {
                for finding in try await StoredTotals.findings(store) { logger.warn(finding.sentence) }
            }
            for sentence in try await UpgradeFindings.sentences(store, outbound: configuration.outbound) { logger.warn(sentence) }
            let bootstrap = try await Bootstrap.run(store: store, clock: clock, linkDomain: configuration.firstLinkDomain)
            let box: SecretBox
            do {
                box = try await SecretKeyFile.load(path: configuration.secretKeyFilePath, store: store)
            } catch let refused as SecretKeyFile.Refused {
                throw StartupFailure(description: refused.description)
            }
            let sealed = try await SecretKeyFile.sealStored(store, box: box, now: clock.nowMilliseconds())
            if let sealed, sealed > 0 { logger.info("secrets sealed with the key file", ["count": .number(String(sealed))]) }
            if sealed == nil { logger.info("sealing stored secrets waits until no server of an older version runs on the database") }
            let years = await buildYearRows(store, now: clock.nowMilliseconds(), logger: logger)
            if years == nil {
                logger.info("the link figures' year rows wait until no server of an older version runs on the database; "
                            + "until then figures are read from months and days")
            }
            let secrets = try await InstanceSecrets.load(store, box: box)
            let roots = try AppleTrustRoots.configured(configuration, logger: logger)
            let composition = ServerComposition(configuration, store: store, secrets: secrets, box: box, roots: roots, clock: clock,
                                                logger: logger, metrics: metrics)
            let services = composition.services, application = composition.application
            await HourlyMaintenance(services: services, policy: configuration.retention).runOnce()
            let http = HTTPServer(configuration: configuration.http, logger: logger, router: application.router,
                                  immediate: { request in application.respondImmediately(to: request) }) { request in
                await application.respond(to: request)
            }
            try http.start()
            services.listening.set(Int(http.port))
            logger.info("listening", ["host": .string(configuration.http.host), "port": .number(String(http.port)),
                                      "threads": .number(String(configuration.http.threads))])
            return ServerRuntime(configuration: configuration, composition: composition, bootstrap: bootstrap, http: http,
                                 sealPending: sealed == nil, yearsPending: years == nil)
        } catch {
            await store.close()
            throw error
        }
    }

    /// Graceful stop: no new connections, requests in flight finish (up to the grace period), then the store closes.
    public func stop() async {
        services.logger.info("stopping", ["graceSeconds": .number(String(configuration.shutdownGraceSeconds))])
        await http.shutdown(grace: .milliseconds(Int64(configuration.shutdownGraceSeconds * 1000)))
        await workers.stop()
        try? await services.store.write { db in try ServerInstance.leave(db) }
        await services.store.close()
        services.logger.info("stopped")
    }

    /// Starts listening for SIGTERM and SIGINT at once (before the server starts, so a signal is never lost) and
    /// returns a waiter that finishes when one arrives.
    public static func terminationSignal() -> TerminationSignal { TerminationSignal() }
}

/// SIGTERM or SIGINT, caught from the moment this is made.
public final class TerminationSignal: @unchecked Sendable {  // the sources are only kept alive
    private let received = DispatchSemaphore(value: 0)
    private let sources: [any DispatchSourceSignal]

    init() {
        signal(SIGTERM, SIG_IGN)
        signal(SIGINT, SIG_IGN)
        let queue = DispatchQueue(label: "linkrunway-signals")
        let once = OnceFlag()
        let received = self.received
        sources = [SIGTERM, SIGINT].map { DispatchSource.makeSignalSource(signal: $0, queue: queue) }
        for source in sources {
            source.setEventHandler {
                if once.claim() { received.signal() }
            }
            source.resume()
        }
    }

    /// Returns once a signal has arrived (waiting on a thread of its own, not the cooperative pool).
    public func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread { [received] in
                received.wait()
                continuation.resume()
            }.start()
        }
    }
}

/// A configuration the server cannot start with.
struct StartupFailure: Error, CustomStringConvertible {
    let description: String
}

/// True for the first caller only.
final class OnceFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var claimed = false

    func claim() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if claimed { return false }
        claimed = true
        return true
    }
}
