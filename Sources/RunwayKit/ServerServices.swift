import AppleFormats
import RunwayCrypto
import RunwayHTTP
import RunwayOutbound
import RunwayStore
import Synchronization

/// What route handlers need, built once at start-up.
public struct ServerServices: Sendable {
    public let store: any Store
    public let clock: WallClock
    /// Elapsed time for caches and rate limits.
    public let monotonic: MonotonicClock
    public let logger: Logger
    public let metrics: MetricsRegistry
    public let authenticator: KeyAuthenticator
    public let secrets: InstanceSecrets
    public let addresses: AddressHasher
    /// Apple's App Attestation Root CA: built in, or `LINKRUNWAY_APP_ATTEST_ROOT`; nil only where a test leaves it out.
    public let appAttestRoot: Certificate?
    /// Checks App Store signed data against Apple Root CA - G3 (built in) or `LINKRUNWAY_APP_STORE_ROOT`, caching
    /// intermediates; nil only where a test leaves the root out.
    public let appStoreVerifier: AppStoreVerifier?
    /// What webhooks and forwarded postbacks may reach (`LINKRUNWAY_OUTBOUND_PRIVATE_TARGETS`).
    public let outbound: OutboundPolicy
    /// Each capability's settings as configured (`services.settings[LinksSettings.self]`).
    package let settings: CapabilitySettingsSet
    /// Where console passwords are hashed and checked.
    package let passwords = PasswordPool()
    /// The port the server listens on, once it does.
    public let listening = ListeningPort()
    /// The objects capabilities keep for the life of the server (caches, pools), made on first use.
    private let sharedObjects = SharedObjects()
    /// Seals the secrets stored in the database with the key file kept outside it.
    public let secretBox: SecretBox

    package init(store: any Store, clock: WallClock = .system, monotonic: MonotonicClock = .system, logger: Logger, metrics: MetricsRegistry, secrets: InstanceSecrets,
                 authenticator: KeyAuthenticator? = nil, appAttestRoot: Certificate? = nil, appStoreRoot: Certificate? = nil,
                 outbound: OutboundPolicy = OutboundPolicy(), secretBox: SecretBox, settings: CapabilitySettingsSet = CapabilitySettingsSet()) {
        self.store = store
        self.clock = clock
        self.monotonic = monotonic
        self.logger = logger
        self.metrics = metrics
        self.secrets = secrets
        self.authenticator = authenticator ?? KeyAuthenticator(store: store)
        self.addresses = AddressHasher(store: store, box: secretBox)
        self.secretBox = secretBox
        self.settings = settings
        self.appAttestRoot = appAttestRoot
        self.appStoreVerifier = appStoreRoot.map(AppStoreVerifier.init(root:))
        self.outbound = outbound
    }
}

extension ServerServices {
    /// The one `T` of this server (and of every copy of these services), made from them on first use.
    package func shared<T: SharedObject>(_ type: T.Type) -> T {
        sharedObjects.object(type, self)
    }
}

/// The TCP port the server listens on: 0 until the transport has started (and for in-process tests, which have none).
public final class ListeningPort: Sendable {
    private let value = Atomic<Int>(0)

    /// The port, or 0.
    public var port: Int { value.load(ordering: .relaxed) }

    /// Records the port the transport bound.
    public func set(_ port: Int) { value.store(port, ordering: .relaxed) }
}

/// An object a capability keeps for the life of the server (a cache, a pool), without a field in `ServerServices`:
/// the capability declares `extension ServerServices { var cache: Cache { shared(Cache.self) } }`.
package protocol SharedObject: AnyObject, Sendable {
    init(_ services: ServerServices)
}

/// The shared objects made so far, by type.
private final class SharedObjects: Sendable {
    private let objects = Mutex<[ObjectIdentifier: any SharedObject]>([:])

    package func object<T: SharedObject>(_ type: T.Type, _ services: ServerServices) -> T {
        let key = ObjectIdentifier(type)
        // trap-safe: objects are stored under their own type's identifier
        if let made = objects.withLock({ $0[key] }) { return made as! T }
        // Made outside the lock, so that making one may ask for another; the first one stored wins.
        let made = T(services)
        return objects.withLock { objects in
            if let first = objects[key] { return first as! T }  // trap-safe: objects are stored under their own type's identifier
            objects[key] = made
            return made
        }
    }
}

/// Short names for the key kinds a route accepts.
package enum Access {
    package static let admin = RouteAccess.keys(["admin"])
    package static let management = RouteAccess.keys(["admin", "server"])
    package static let anyKey = RouteAccess.keys(["admin", "server", "publishable"])
    package static let client = RouteAccess.keys(["publishable"])
}
