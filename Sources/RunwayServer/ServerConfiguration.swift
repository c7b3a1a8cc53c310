import Foundation
import RunwayCapabilities
import RunwayConsole
import RunwayHTTP
import RunwayHTTPServer
import RunwayKit
import RunwayOutbound
import RunwayStore

/// Everything `linkrunway serve` can be told, read once from the environment and flags (flags win).
public struct ServerConfiguration: Sendable {
    public var database: DatabaseLocation
    public var http: HTTPServerConfiguration
    public var logLevel: LogLevel
    /// Seconds `serve` and `migrate` wait at start for a database that does not answer yet.
    public var databaseWaitSeconds: Double = 30
    /// Seconds in-flight requests get to finish on SIGTERM/SIGINT.
    public var shutdownGraceSeconds: Double
    /// `full` (default): every acknowledged write survives power loss; `normal`: survives a crash of the process.
    public var sqliteSynchronousFull: Bool
    /// The link domain the first workspace gets on first start.
    public var firstLinkDomain: String = "localhost"
    /// A PEM file with Apple's App Attestation Root CA, instead of the built-in one.
    public var appAttestRootPath: String?
    /// Proxies whose X-Forwarded-For and X-Forwarded-Proto are believed.
    public var trustedProxies: TrustedProxies = .none
    /// DER or PEM of the root App Store signed data must chain to, instead of the built-in Apple Root CA - G3.
    public var appStoreRootPath: String?
    /// How long raw clicks, events, postbacks and address hashes are kept.
    public var retention = RetentionPolicy()
    /// Requests a minute per client address and per key on the routes apps and Apple call.
    public var rateLimits = RateLimitSettings()
    /// Where the first start writes the admin key (mode 0600, never overwriting); nil prints it on standard output.
    public var adminKeyFile: String?
    /// What webhooks and forwarded postbacks may reach.
    public var outbound = OutboundPolicy()
    /// Each capability's own settings (`CapabilitySettings`), by type.
    package var capabilities = CapabilitySettingsSet()
    /// The file holding the key that seals stored secrets; nil puts it beside a SQLite database (`linkrunway.key`), or in
    /// the working folder for PostgreSQL.
    public var secretKeyFile: String?

    /// Where the secret key file is.
    public var secretKeyFilePath: String {
        if let secretKeyFile { return secretKeyFile }
        if case .sqlite(let path) = database {
            let folder = (path as NSString).deletingLastPathComponent
            return (folder.isEmpty ? "." : folder) + "/linkrunway.key"
        }
        return "./linkrunway.key"
    }

    public init(database: DatabaseLocation = .sqlite(path: "./linkrunway.db"), http: HTTPServerConfiguration = HTTPServerConfiguration(),
                logLevel: LogLevel = .info, shutdownGraceSeconds: Double = 10, sqliteSynchronousFull: Bool = true) {
        self.database = database
        self.http = http
        self.logLevel = logLevel
        self.shutdownGraceSeconds = shutdownGraceSeconds
        self.sqliteSynchronousFull = sqliteSynchronousFull
    }

    /// One setting of the server as a whole; a capability's own are `SettingDefinition`s of its settings type.
    package typealias Setting = SettingDefinition<ServerConfiguration>

    /// Every setting: the server's, then each capability's, in the capabilities' order. docs/configuration.md lists
    /// them.
    package static let settings: [Setting] = serverSettings + ServerApplication.capabilities.compactMap(\.settings).flatMap { type in
        type.definitionsInSet.map { definition in
            Setting(environment: definition.environment, flag: definition.flag, defaultValue: definition.defaultValue,
                    summary: definition.summary) { configuration, value in definition.apply(&configuration.capabilities, value) }
        }
    }

    static let serverSettings: [Setting] = [
        Setting(environment: "LINKRUNWAY_DATABASE_URL", flag: "--database-url", defaultValue: "sqlite:./linkrunway.db",
                summary: "Where data lives: `sqlite:<path>` or `postgres://user:pass@host:5432/db`.") { c, v in
            guard let location = DatabaseLocation(url: v) else { return false }
            c.database = location
            return true
        },
        Setting(environment: "LINKRUNWAY_DATABASE_WAIT", flag: "--database-wait", defaultValue: "30",
                summary: "Seconds `serve` and `migrate` wait at start for a database that is still starting or too busy to take a connection, trying again twice a second (at most 3600; 0 tries once).") { c, v in
            guard let n = Double(v), n >= 0, n <= 3600 else { return false }
            c.databaseWaitSeconds = n
            return true
        },
        Setting(environment: "LINKRUNWAY_HOST", flag: "--host", defaultValue: "127.0.0.1",
                summary: "Numeric address to listen on; `0.0.0.0` or `::` for every interface.") { c, v in
            guard !v.isEmpty else { return false }
            c.http.host = v
            return true
        },
        Setting(environment: "LINKRUNWAY_PORT", flag: "--port", defaultValue: "8080", summary: "TCP port; `0` picks a free one.") { c, v in
            guard let port = UInt16(v) else { return false }
            c.http.port = port
            return true
        },
        Setting(environment: "LINKRUNWAY_LOG_LEVEL", flag: "--log-level", defaultValue: "info",
                summary: "`debug`, `info` (one JSON line per request), `warn`, `error`.") { c, v in
            guard let level = LogLevel(rawValue: v.lowercased()) else { return false }
            c.logLevel = level
            return true
        },
        Setting(environment: "LINKRUNWAY_THREADS", flag: "--threads", defaultValue: "number of cores",
                summary: "HTTP polling threads.") { c, v in
            guard let n = Int(v), (1...256).contains(n) else { return false }
            c.http.threads = n
            return true
        },
        Setting(environment: "LINKRUNWAY_MAX_BODY_BYTES", flag: "--max-body-bytes", defaultValue: "1048576",
                summary: "Largest request body (413 beyond; some routes set less).") { c, v in
            guard let n = Int(v), n >= 1024 else { return false }
            c.http.maxBodyBytes = n
            return true
        },
        Setting(environment: "LINKRUNWAY_MAX_CONNECTIONS", flag: "--max-connections", defaultValue: "4096",
                summary: "Open connections in all.") { c, v in
            guard let n = Int(v), n >= 1 else { return false }
            c.http.maxConnections = n
            return true
        },
        Setting(environment: "LINKRUNWAY_MAX_CONNECTIONS_PER_ADDRESS", flag: "--max-connections-per-address", defaultValue: "256",
                summary: "Open connections from one client address (`0`: no limit).") { c, v in
            guard let n = Int(v), n >= 0 else { return false }
            c.http.maxConnectionsPerAddress = n
            return true
        },
        Setting(environment: "LINKRUNWAY_CONNECTION_TIMEOUT", flag: "--connection-timeout", defaultValue: "30",
                summary: "Seconds an idle or slow connection is kept.") { c, v in
            guard let n = Int(v), n >= 1 else { return false }
            c.http.connectionTimeoutSeconds = n
            return true
        },
        Setting(environment: "LINKRUNWAY_HEADER_DEADLINE", flag: "--header-deadline", defaultValue: "10",
                summary: "Seconds a connection gets to send a request's headers, from its opening or its last response; a slower one (or one idle that long) is closed.") { c, v in
            guard let n = Double(v), n >= 0.5, n <= 3600 else { return false }
            c.http.headerDeadlineSeconds = n
            return true
        },
        Setting(environment: "LINKRUNWAY_MIN_BODY_RATE", flag: "--min-body-rate", defaultValue: "1024",
                summary: "Bytes a second a request body must average after its first 5 seconds, or its connection is closed.") { c, v in
            guard let n = Int(v), n >= 0 else { return false }
            c.http.minBodyBytesPerSecond = n
            return true
        },
        Setting(environment: "LINKRUNWAY_MAX_PENDING_CONNECTIONS", flag: "--max-pending-connections", defaultValue: "1024",
                summary: "Connections still sending headers or a body at once; past it the oldest are closed.") { c, v in
            guard let n = Int(v), n >= 1 else { return false }
            c.http.maxPendingConnections = n
            return true
        },
        Setting(environment: "LINKRUNWAY_MAX_BUFFERED_BODY_BYTES", flag: "--max-buffered-body-bytes", defaultValue: "67108864",
                summary: "Request body bytes held at once across every connection; past it a request is answered 503 `server_busy`.") { c, v in
            guard let n = Int(v), n >= 1024 else { return false }
            c.http.maxBufferedBodyBytes = n
            return true
        },
        Setting(environment: "LINKRUNWAY_REQUEST_TIMEOUT", flag: "--request-timeout", defaultValue: "30",
                summary: "Seconds a request may take before it is answered 503 (at most 3600).") { c, v in
            guard let n = Double(v), n > 0, n <= 3600 else { return false }
            c.http.requestTimeoutSeconds = n
            return true
        },
        Setting(environment: "LINKRUNWAY_SHUTDOWN_GRACE", flag: "--shutdown-grace", defaultValue: "10",
                summary: "Seconds requests in flight get on SIGTERM or SIGINT (at most 3600).") { c, v in
            guard let n = Double(v), n >= 0, n <= 3600 else { return false }
            c.shutdownGraceSeconds = n
            return true
        },
        Setting(environment: "LINKRUNWAY_TRUSTED_PROXIES", flag: "--trusted-proxies", defaultValue: "none",
                summary: "Addresses or CIDR ranges of your reverse proxies (`127.0.0.1, 10.0.0.0/8`); only their `X-Forwarded-For` and `X-Forwarded-Proto` are believed.") { c, v in
            guard let proxies = TrustedProxies(v) else { return false }
            c.trustedProxies = proxies
            return true
        },
        Setting(environment: "LINKRUNWAY_LINK_DOMAIN", flag: "--link-domain", defaultValue: "localhost",
                summary: "The link domain the first workspace gets on first start (add more with `linkrunway domain add`).") { c, v in
            guard let host = try? LinkValidate.hostname(v) else { return false }
            c.firstLinkDomain = host
            return true
        },
        Setting(environment: "LINKRUNWAY_APP_ATTEST_ROOT", flag: "--app-attest-root", defaultValue: "built in",
                summary: "PEM file of Apple's App Attestation Root CA, instead of the copy built into the server (checked against Apple's SHA-256 either way).") { c, v in
            guard FileManager.default.isReadableFile(atPath: v) else { return false }
            c.appAttestRootPath = v
            return true
        },
        Setting(environment: "LINKRUNWAY_APP_STORE_ROOT", flag: "--app-store-root", defaultValue: "built in",
                summary: "DER or PEM of the root App Store notifications must chain to, instead of the copy of Apple Root CA - G3 built into the server (another root starts with a warning, for tests).") { c, v in
            guard FileManager.default.isReadableFile(atPath: v) else { return false }
            c.appStoreRootPath = v
            return true
        },
        Setting(environment: "LINKRUNWAY_ADMIN_KEY_FILE", flag: "--admin-key-file", defaultValue: "none (printed on standard output)",
                summary: "File the first start (on an empty database) writes the admin key to, readable by the server's user only, instead of printing it, so it stays out of a journal. Its folder must exist.") { c, v in
            var isDirectory: ObjCBool = false
            guard !v.isEmpty, FileManager.default.fileExists(atPath: URL(fileURLWithPath: v).deletingLastPathComponent().path, isDirectory: &isDirectory),
                  isDirectory.boolValue else { return false }
            c.adminKeyFile = v
            return true
        },
        Setting(environment: "LINKRUNWAY_RETAIN_CLICKS_DAYS", flag: "--retain-clicks-days", defaultValue: "400",
                summary: "Days raw clicks are kept (at least 30, the longest click window).") { c, v in
            guard let n = Int(v), (30...36_500).contains(n) else { return false }
            c.retention.clickDays = n
            return true
        },
        Setting(environment: "LINKRUNWAY_RETAIN_EVENTS_DAYS", flag: "--retain-events-days", defaultValue: "760",
                summary: "Days events are kept (1 to 36500).") { c, v in
            guard let n = Int(v), (1...36_500).contains(n) else { return false }
            c.retention.eventDays = n
            return true
        },
        Setting(environment: "LINKRUNWAY_RETAIN_POSTBACKS_DAYS", flag: "--retain-postbacks-days", defaultValue: "760",
                summary: "Days raw SKAdNetwork and AdAttributionKit postbacks are kept (1 to 36500).") { c, v in
            guard let n = Int(v), (1...36_500).contains(n) else { return false }
            c.retention.postbackDays = n
            return true
        },
        Setting(environment: "LINKRUNWAY_RETAIN_ADDRESS_HASHES_HOURS", flag: "--retain-address-hashes-hours", defaultValue: "48",
                summary: "Hours keyed address hashes stay on clicks and installs (1 to 720); ad impressions go with theirs. Below an app's probabilistic or view-through window, those matches reach back only this far.") { c, v in
            guard let n = Int(v), (1...720).contains(n) else { return false }
            c.retention.addressHashHours = n
            return true
        },
        Setting(environment: "LINKRUNWAY_RATE_LIMIT_ADDRESS", flag: "--rate-limit-address", defaultValue: "600",
                summary: "Requests a minute one client address may send to the routes apps and Apple call (match, resolve, events, App Attest, binds, postbacks, notifications), each event of a batch counted as one; beyond it, 429 with `Retry-After`. IPv6 addresses count by /64. `0` turns it off. Counted in each process.") { c, v in
            guard let n = Int(v), n >= 0 else { return false }
            c.rateLimits.perAddressPerMinute = n
            return true
        },
        Setting(environment: "LINKRUNWAY_RATE_LIMIT_KEY", flag: "--rate-limit-key", defaultValue: "60000",
                summary: "Requests a minute one key may send to the same routes, each event of a batch counted as one (every install of an app shares its publishable key). `0` turns it off.") { c, v in
            guard let n = Int(v), n >= 0 else { return false }
            c.rateLimits.perKeyPerMinute = n
            return true
        },
        Setting(environment: "LINKRUNWAY_RATE_LIMIT_INSTALL_EVENTS", flag: "--rate-limit-install-events", defaultValue: "10000",
                summary: "Events one install may send in a day with the app's publishable key (a server key is not held to it); past it each event is rejected with `rate_limited`. `0` turns it off. Counted in each process.") { c, v in
            guard let n = Int(v), (0...100_000_000).contains(n) else { return false }
            c.rateLimits.eventsPerInstallPerDay = n
            return true
        },
        Setting(environment: "LINKRUNWAY_OUTBOUND_PRIVATE_TARGETS", flag: "--outbound-private-targets", defaultValue: "off",
                summary: "`on` lets webhooks and forwarded postbacks reach loopback, private and link-local addresses, and plain `http://`, for a server on a private network. Off, they go to public `https://` addresses only, checked again at the address connected to.") { c, v in
            switch v.lowercased() {
            case "on": c.outbound.allowPrivateTargets = true
            case "off": c.outbound.allowPrivateTargets = false
            default: return false
            }
            return true
        },
        Setting(environment: "LINKRUNWAY_OUTBOUND_PORTS", flag: "--outbound-ports", defaultValue: "443 (any with private targets on)",
                summary: "The ports webhooks and forwarded postbacks may reach (`443, 8443`), or `any`. A URL naming another port is refused when given, and a delivery to one fails with `blocked_port`.") { c, v in
            if v.lowercased() == "any" {
                c.outbound.allowedPorts = Set(1...65_535)
                return true
            }
            let ports = v.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
            guard !ports.isEmpty, ports.allSatisfy({ $0.map { (1...65_535).contains($0) } ?? false }) else { return false }
            c.outbound.allowedPorts = Set(ports.compactMap { $0 })
            return true
        },
        Setting(environment: "LINKRUNWAY_SECRET_KEY_FILE", flag: "--secret-key-file", defaultValue: "linkrunway.key beside the SQLite database (the working folder for PostgreSQL)",
                summary: "The key that seals stored secrets (webhook secrets, ad networks' private keys, the instance key, the day keys of address hashes), outside the database. The first start creates it (mode 0600); every server of one database needs a copy; keep it out of database backups.") { c, v in
            guard !v.isEmpty else { return false }
            c.secretKeyFile = v
            return true
        },
        Setting(environment: "LINKRUNWAY_SQLITE_SYNCHRONOUS", flag: "--sqlite-synchronous", defaultValue: "full",
                summary: "`full`: acknowledged writes survive power loss; `normal`: they survive a crash of the process.") { c, v in
            switch v.lowercased() {
            case "full": c.sqliteSynchronousFull = true
            case "normal": c.sqliteSynchronousFull = false
            default: return false
            }
            return true
        },
    ]

    public struct InvalidSetting: Error, CustomStringConvertible {
        public let name: String
        public let value: String
        public var description: String { "invalid value \"\(value)\" for \(name)" }
    }

    /// Defaults, then the environment, then flags (`--port` → value).
    public static func load(environment: [String: String], flags: [String: String]) throws -> ServerConfiguration {
        var configuration = ServerConfiguration()
        for setting in settings {
            if let value = environment[setting.environment], !value.isEmpty, !setting.apply(&configuration, value) {
                throw InvalidSetting(name: setting.environment, value: value)
            }
        }
        for setting in settings {
            if let value = flags[setting.flag], !setting.apply(&configuration, value) {
                throw InvalidSetting(name: setting.flag, value: value)
            }
        }
        return configuration
    }
}
