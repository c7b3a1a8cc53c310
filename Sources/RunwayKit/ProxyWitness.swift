import RunwayHTTP
import Synchronization

/// Remembers a proxy that terminates TLS (it sends `X-Forwarded-Proto: https`) but is not among the trusted proxies:
/// its clients' addresses are then the proxy's own, and console cookies go out without `Secure`. Logged once, and
/// named by `/readyz` for `linkrunway doctor`.
package final class ProxyWitness: SharedObject {
    private let seen = Mutex<String?>(nil)
    private let logger: Logger

    package init(_ services: ServerServices) { logger = services.logger }

    /// The first such proxy seen since the server started, if any.
    package var untrustedTLSProxy: String? { seen.withLock { $0 } }

    /// Records `peer` (called for each such request; only the first is kept and logged).
    package func saw(_ peer: String) {
        let first = seen.withLock { seen -> Bool in
            guard seen == nil else { return false }
            seen = peer
            return true
        }
        if first {
            logger.warn("a proxy that is not trusted says its clients use TLS; set LINKRUNWAY_TRUSTED_PROXIES to it",
                           ["peer": .string(peer)])
        }
    }
}

extension ServerServices {
    package var proxyWitness: ProxyWitness { shared(ProxyWitness.self) }
}
