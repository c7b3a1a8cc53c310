import LinkRunwayAPI
import RunwayCrypto
import RunwayHTTP
import RunwayKit
import RunwayStore

/// The secret a device sends with its install's first match, so that only that device can forget the install, or see
/// its stored answer again, with the app's publishable key (which anyone can read out of the app). Only its SHA-256 is
/// kept; the first one sent for an install stays. An install whose SDK sent none takes a first secret only within
/// `adoptionMilliseconds` of its match; installs that have none can still be forgotten without it.
enum InstallSecrets {
    /// How long after its match an install without a secret takes one, and answers a match that proves none.
    static let adoptionMilliseconds: Int64 = 3_600_000

    /// The hash to keep, or nil when none was sent; 400 for one that is not 16 to 128 visible ASCII characters.
    static func hash(_ secret: String?) throws -> String? {
        guard let secret else { return nil }
        guard (16...128).contains(secret.utf8.count), secret.utf8.allSatisfy({ $0 >= 0x21 && $0 <= 0x7e }) else {
            throw RequestError.invalidField("installSecret", "must be 16 to 128 visible ASCII characters")
        }
        return ByteEncoding.hex(Digest.sha256(Array(secret.utf8)))
    }

    /// Whether a later match of an install may be given its stored answer (and keep the secret it sends, if the install
    /// has none yet): when it proves the install's secret, or, for an install without one, within an hour of its match.
    /// Anything else is someone holding the app's key and an install id: 403, and nothing stored is answered.
    static func admitRematch(_ db: any SQLExecutor, appId: String, installId: String, presented: String?, matchedAt: Int64, now: Int64) throws {
        if let stored = try AttributionQueries.secretHash(db, appId: appId, installId: installId) {
            guard let presented, ConstantTime.equal(Array(presented.utf8), Array(stored.utf8)) else { throw AttributionError.installSecretMismatch }
            return
        }
        guard now - matchedAt <= adoptionMilliseconds else { throw AttributionError.installSecretMismatch }
        if let presented { try AttributionQueries.keepSecret(db, appId: appId, installId: installId, hash: presented, now: now) }
    }

    /// 403 `install_secret_mismatch` unless `given` is the install's secret (or the install has none).
    static func check(_ given: String?, appId: String, installId: String, services: ServerServices) async throws {
        guard let stored = try await services.store.read({ db in
            try AttributionQueries.secretHash(db, appId: appId, installId: installId)
        }) else { return }
        let presented = ByteEncoding.hex(Digest.sha256(Array((given ?? "").utf8)))
        guard given != nil, ConstantTime.equal(Array(presented.utf8), Array(stored.utf8)) else {
            throw AttributionError.installSecretMismatch
        }
    }
}
