import AppleFormats
import Foundation
import RunwayCrypto
import RunwayHTTP
import RunwayKit
import RunwayStore

/// A server once its store is open and its secrets are loaded: the services its handlers share, the application that
/// answers requests and the workers that run beside them. `ServerRuntime.start` and the tests' in-process server are
/// both made here, so a setting or a worker cannot be live in one and missing in the other.
package struct ServerComposition: Sendable {
    package let services: ServerServices
    package let application: HTTPApplication
    /// Every capability's workers, in the capabilities' order, then the hourly maintenance.
    package let workers: [any Service]

    package init(_ configuration: ServerConfiguration, store: any Store, secrets: InstanceSecrets, box: SecretBox, roots: AppleTrustRoots,
                 clock: WallClock, monotonic: MonotonicClock = .system, logger: Logger, metrics: MetricsRegistry) {
        let services = ServerServices(store: store, clock: clock, monotonic: monotonic, logger: logger, metrics: metrics, secrets: secrets,
                                      appAttestRoot: roots.appAttest, appStoreRoot: roots.appStore, outbound: configuration.outbound,
                                      secretBox: box, settings: configuration.capabilities)
        self.services = services
        application = ServerApplication.make(services, maxBodyBytes: configuration.http.maxBodyBytes,
                                             trustedProxies: configuration.trustedProxies, rateLimits: configuration.rateLimits)
        workers = ServerApplication.capabilities.flatMap { $0.workers(services) }
            + [HourlyMaintenance(services: services, policy: configuration.retention)]
    }
}

/// The roots Apple's signatures must chain to: App Attest's and the App Store's.
package struct AppleTrustRoots: Sendable {
    /// Apple's App Attestation Root CA; nil only where a test leaves it out.
    package var appAttest: Certificate?
    /// Apple Root CA - G3, which App Store signed data chains to; nil only where a test leaves it out.
    package var appStore: Certificate?

    package init(appAttest: Certificate?, appStore: Certificate?) {
        self.appAttest = appAttest
        self.appStore = appStore
    }

    /// The built-in roots, each replaced by the file a setting names (tests, or Apple rotating a root). An App Attest
    /// file must hold Apple's root; another App Store root is taken with a warning.
    static func configured(_ configuration: ServerConfiguration, logger: Logger) throws -> AppleTrustRoots {
        let appAttest = try configuration.appAttestRootPath.map { path -> Certificate in
            guard let pem = try? String(contentsOfFile: path, encoding: .utf8), let root = AppAttestVerifier.appleRoot(pem: pem) else {
                throw StartupFailure(description: "\(path) is not Apple's App Attestation Root CA")
            }
            return root
        } ?? AppleRoots.appAttestationRootCA
        let appStore = try configuration.appStoreRootPath.map { path -> Certificate in
            guard let data = FileManager.default.contents(atPath: path), let root = AppStoreVerifier.certificate(file: Array(data)) else {
                throw StartupFailure(description: "\(path) is not a certificate (DER or PEM)")
            }
            if ByteEncoding.hex(Digest.sha256(root.der)) != AppStoreVerifier.appleRootG3Fingerprint {
                logger.warn("the App Store root is not Apple Root CA - G3: notifications signed by Apple will not verify", ["subject": .string(root.subject)])
            }
            return root
        } ?? AppleRoots.appleRootCAG3
        return AppleTrustRoots(appAttest: appAttest, appStore: appStore)
    }
}

/// Every hour: partitions ahead, retention applied, old address keys forgotten (`Maintenance`). The first pass runs
/// during start, before the server listens.
struct HourlyMaintenance: Service {
    let services: ServerServices
    let policy: RetentionPolicy

    var name: String { "maintenance" }

    func run() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(3600))
            if Task.isCancelled { return }
            await runOnce()
        }
    }

    /// One pass; a failure is logged and the next hour tries again.
    func runOnce() async {
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
}

/// Tells the other processes on the database that this one runs (`ServerInstance`), every two seconds; while sealing
/// the stored secrets or making the link figures' year rows waits for older servers, tries it again after each beat.
struct Heartbeat: Service {
    let services: ServerServices
    let sealPending: Bool
    let yearsPending: Bool

    var name: String { "heartbeat" }

    func run() async {
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
                yearsPending = await ServerRuntime.buildYearRows(services.store, now: now, logger: services.logger) == nil
            }
            try? await Task.sleep(for: ServerInstance.heartbeatInterval)
        }
    }
}
