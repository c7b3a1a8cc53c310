import AppleFormats
import RunwayCrypto
import RunwayHTTP
import RunwayOutbound
import RunwayStore

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
    let links: LinkDirectory
    let webhookSubscriptions: SubscriptionCache
    /// Where and how Apple Ads claims are resolved.
    let appleAds: AppleAdsClaims.Settings
    /// Apple's App Attestation Root CA, when configured (`LINKRUNWAY_APP_ATTEST_ROOT`).
    public let appAttestRoot: Certificate?
    /// Checks App Store signed data against the configured root (`LINKRUNWAY_APP_STORE_ROOT`), caching intermediates.
    public let appStoreVerifier: AppStoreVerifier?
    /// What webhooks and forwarded postbacks may reach (`LINKRUNWAY_OUTBOUND_PRIVATE_TARGETS`).
    public let outbound: OutboundPolicy
    /// The bearer token `/metrics` asks for, if any (`LINKRUNWAY_METRICS_TOKEN`).
    public let metricsToken: String?
    /// Where console passwords are hashed and checked.
    let passwords = PasswordPool()
    /// Seals the secrets stored in the database with the key file kept outside it.
    public let secretBox: SecretBox
    /// The DNS server that domain verification asks, instead of the system's (`LINKRUNWAY_DNS_SERVER`).
    public let dnsServer: TXTLookup.Server?

    public init(store: any Store, clock: WallClock = .system, monotonic: MonotonicClock = .system, logger: Logger, metrics: MetricsRegistry, secrets: InstanceSecrets,
                authenticator: KeyAuthenticator? = nil, appleAdsURL: String = "https://api-adservices.apple.com",
                appAttestRoot: Certificate? = nil, appStoreRoot: Certificate? = nil, appleAdsTimeoutSeconds: Double = 10,
                outbound: OutboundPolicy = OutboundPolicy(), metricsToken: String? = nil, secretBox: SecretBox,
                dnsServer: TXTLookup.Server? = nil) {
        self.store = store
        self.clock = clock
        self.monotonic = monotonic
        self.logger = logger
        self.metrics = metrics
        self.secrets = secrets
        self.authenticator = authenticator ?? KeyAuthenticator(store: store)
        self.addresses = AddressHasher(store: store, box: secretBox)
        self.secretBox = secretBox
        self.dnsServer = dnsServer
        self.links = LinkDirectory(store: store, clock: monotonic)
        self.webhookSubscriptions = SubscriptionCache(store: store)
        var appleAds = AppleAdsClaims.Settings()
        appleAds.baseURL = appleAdsURL
        appleAds.timeoutSeconds = appleAdsTimeoutSeconds
        self.appleAds = appleAds
        self.appAttestRoot = appAttestRoot
        self.appStoreVerifier = appStoreRoot.map(AppStoreVerifier.init(root:))
        self.outbound = outbound
        self.metricsToken = metricsToken
    }
}

/// Short names for the key kinds a route accepts.
enum Access {
    static let admin = RouteAccess.keys(["admin"])
    static let management = RouteAccess.keys(["admin", "server"])
    static let anyKey = RouteAccess.keys(["admin", "server", "publishable"])
    static let client = RouteAccess.keys(["publishable"])
}
