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

/// A running server: store opened and migrated, first-start bootstrap done, HTTP listening.
public final class ServerRuntime: Sendable {
    public let configuration: ServerConfiguration
    public let services: ServerServices
    public let application: HTTPApplication
    public let bootstrap: Bootstrap.Result?
    private let http: HTTPServer
    private let maintenance: Task<Void, Never>
    private let webhooks: Task<Void, Never>
    private let appleAds: Task<Void, Never>
    private let postbackForwards: Task<Void, Never>
    private let heartbeat: Task<Void, Never>

    /// The bound port (useful when the configuration asked for 0).
    public var port: UInt16 { http.port }

    private init(configuration: ServerConfiguration, services: ServerServices, application: HTTPApplication,
                 bootstrap: Bootstrap.Result?, http: HTTPServer, sealPending: Bool, yearsPending: Bool) {
        self.configuration = configuration
        self.services = services
        self.application = application
        self.bootstrap = bootstrap
        self.http = http
        self.maintenance = Task { await Self.maintainPartitions(services, policy: configuration.retention) }
        let dispatcher = OutboxDispatcher(services: services, queue: Webhooks.outbox)
        self.webhooks = Task { await dispatcher.run() }
        let claims = AppleAdsClaims(services: services, settings: services.appleAds)
        self.appleAds = Task { await claims.run() }
        let forwarder = OutboxDispatcher(services: services, queue: PostbackReceiver.forwardOutbox)
        self.postbackForwards = Task { await forwarder.run() }
        self.heartbeat = Task { await Self.beat(services, sealPending: sealPending, yearsPending: yearsPending) }
    }

    /// Tells the other processes on the database that this one runs (see `ServerInstance`), every two seconds; while
    /// sealing or the link figures' year rows wait for older servers, tries them again after each beat.
    static func beat(_ services: ServerServices, sealPending: Bool, yearsPending: Bool) async {
        var (sealPending, yearsPending) = (sealPending, yearsPending)
        while !Task.isCancelled {
            let now = services.clock.nowMilliseconds()
            do {
                try await services.store.write { db in try ServerInstance.beat(db, now: now, newestStep: Schema.newestStep) }
            } catch {
                services.logger.warn("heartbeat not written", ["error": .string("\(error)")])
            }
            if sealPending {
                do {
                    if let sealed = try await SecretKeyFile.sealStored(services.store, box: services.secretBox, now: now) {
                        sealPending = false
                        services.logger.info("secrets sealed with the key file", ["count": .number(String(sealed))])
                    }
                } catch {
                    services.logger.warn("sealing stored secrets failed; trying again", ["error": .string("\(error)")])
                }
            }
            if yearsPending {
                yearsPending = await buildYearRows(services.store, now: now, logger: services.logger) == nil
            }
            try? await Task.sleep(for: ServerInstance.heartbeatInterval)
        }
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

    /// Creates upcoming partitions, applies the retention policy and forgets old address keys every hour (the first pass runs
    /// during start).
    static func maintainPartitions(_ services: ServerServices, policy: RetentionPolicy) async {
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(3600))
            if Task.isCancelled { return }
            await maintainPartitionsOnce(services, policy: policy)
        }
    }

    static func maintainPartitionsOnce(_ services: ServerServices, policy: RetentionPolicy) async {
        do {
            let report = try await Maintenance.run(services, policy: policy)
            let partitions = report.partitions
            if !partitions.isEmpty || report.addressHashesCleared > 0 {
                services.logger.info("retention applied", [
                    "created": .array(partitions.created.map { .string($0) }), "dropped": .array(partitions.dropped.map { .string($0) }),
                    "deletedRows": .number(String(partitions.deletedRows)),
                    "addressHashesCleared": .number(String(report.addressHashesCleared)),
                ])
            }
        } catch {
            services.logger.warn("maintenance failed; retrying in an hour", ["error": .string("\(error)")])
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
            // Apple's roots are built in; a setting replaces one (tests, or Apple rotating a root).
            let root = try configuration.appAttestRootPath.map { path -> Certificate in
                guard let pem = try? String(contentsOfFile: path, encoding: .utf8), let root = AppAttestVerifier.appleRoot(pem: pem) else {
                    throw StartupFailure(description: "\(path) is not Apple's App Attestation Root CA")
                }
                return root
            } ?? AppleRoots.appAttestationRootCA
            let appStoreRoot = try configuration.appStoreRootPath.map { path -> Certificate in
                guard let data = FileManager.default.contents(atPath: path), let root = AppStoreVerifier.certificate(file: Array(data)) else {
                    throw StartupFailure(description: "\(path) is not a certificate (DER or PEM)")
                }
                if ByteEncoding.hex(Digest.sha256(root.der)) != AppStoreVerifier.appleRootG3Fingerprint {
                    logger.warn("the App Store root is not Apple Root CA - G3: notifications signed by Apple will not verify", ["subject": .string(root.subject)])
                }
                return root
            } ?? AppleRoots.appleRootCAG3
            let services = ServerServices(store: store, clock: clock, logger: logger, metrics: metrics, secrets: secrets,
                                          appleAdsURL: configuration.appleAdsURL, appAttestRoot: root, appStoreRoot: appStoreRoot,
                                          outbound: configuration.outbound, metricsToken: configuration.metricsToken, secretBox: box,
                                          dnsServer: configuration.dnsServer, appStoreAPIURL: configuration.appStoreAPIURL,
                                          extraAutomatedClients: configuration.extraAutomatedClients, countries: configuration.countries)
            await maintainPartitionsOnce(services, policy: configuration.retention)
            let application = ServerApplication.make(services, maxBodyBytes: configuration.http.maxBodyBytes,
                                                     trustedProxies: configuration.trustedProxies, rateLimits: configuration.rateLimits)
            let http = HTTPServer(configuration: configuration.http, logger: logger, router: application.router,
                                  immediate: { request in application.respondImmediately(to: request) }) { request in
                await application.respond(to: request)
            }
            try http.start()
            services.listening.set(Int(http.port))
            logger.info("listening", ["host": .string(configuration.http.host), "port": .number(String(http.port)),
                                      "threads": .number(String(configuration.http.threads))])
            return ServerRuntime(configuration: configuration, services: services, application: application,
                                 bootstrap: bootstrap, http: http, sealPending: sealed == nil, yearsPending: years == nil)
        } catch {
            await store.close()
            throw error
        }
    }

    /// Graceful stop: no new connections, requests in flight finish (up to the grace period), then the store closes.
    public func stop() async {
        services.logger.info("stopping", ["graceSeconds": .number(String(configuration.shutdownGraceSeconds))])
        await http.shutdown(grace: .milliseconds(Int64(configuration.shutdownGraceSeconds * 1000)))
        maintenance.cancel()
        webhooks.cancel()
        appleAds.cancel()
        postbackForwards.cancel()
        heartbeat.cancel()
        await maintenance.value
        await webhooks.value
        await appleAds.value
        await postbackForwards.value
        await heartbeat.value
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
