import LinkRunwayAPI
import RunwayCrypto
import RunwayHTTP
import RunwayKit
import RunwayStore

/// The secret a device sends with its install's first match, so that only that device can forget the install with the
/// app's publishable key (which anyone can read out of the app). Only its SHA-256 is kept; the first one sent for an
/// install stays. Installs whose SDK never sent one can still be forgotten without it.
enum InstallSecrets {
    /// The hash to keep, or nil when none was sent; 400 for one that is not 16 to 128 visible ASCII characters.
    static func hash(_ secret: String?) throws -> String? {
        guard let secret else { return nil }
        guard (16...128).contains(secret.utf8.count), secret.utf8.allSatisfy({ $0 >= 0x21 && $0 <= 0x7e }) else {
            throw RequestError.invalidField("installSecret", "must be 16 to 128 visible ASCII characters")
        }
        return ByteEncoding.hex(Digest.sha256(Array(secret.utf8)))
    }

    /// Keeps `hash` unless the install already has a secret.
    static func keep(_ db: any SQLExecutor, appId: String, installId: String, hash: String, now: Int64) throws {
        try db.execute("""
            INSERT INTO install_secrets (app_id, install_id, secret_hash, created_at) VALUES (\(appId), \(installId), \(hash), \(now))
            ON CONFLICT (app_id, install_id) DO NOTHING
            """)
    }

    /// 403 `install_secret_mismatch` unless `given` is the install's secret (or the install has none).
    static func check(_ given: String?, appId: String, installId: String, services: ServerServices) async throws {
        guard let stored = try await services.store.read({ db in
            try db.first("SELECT secret_hash FROM install_secrets WHERE app_id = \(appId) AND install_id = \(installId)")?.string("secret_hash")
        }) else { return }
        let presented = ByteEncoding.hex(Digest.sha256(Array((given ?? "").utf8)))
        guard given != nil, ConstantTime.equal(Array(presented.utf8), Array(stored.utf8)) else {
            throw AttributionError.installSecretMismatch
        }
    }
}
