import RunwayCrypto
import RunwayStore

/// Keys the whole installation shares (every server process reads the same ones from the database).
public struct InstanceSecrets: Sendable {
    /// Signs `signedClickId`s.
    public let clickSigningKey: [UInt8]

    /// A key for one purpose, derived from the instance's key (so it is never stored).
    public func derivedKey(_ purpose: String) -> [UInt8] {
        Digest.hmacSHA256(key: clickSigningKey, message: Array("linkrunway \(purpose)".utf8))
    }

    /// Reads the keys, creating any that do not exist yet (the first process to ask wins; the others read its key).
    /// They are stored sealed with `box`.
    public static func load(_ store: any Store, box: SecretBox) async throws -> InstanceSecrets {
        let candidate = box.seal(ByteEncoding.hex(SecureRandom.bytes(32)), purpose: purpose)
        let sealed: String = try await store.write { db in
            try db.execute("INSERT INTO instance_meta (name, value) VALUES ('click_signing_key', \(candidate)) ON CONFLICT (name) DO NOTHING")
            guard let value = try Self.meta(db, name: "click_signing_key") else {
                throw StoreError.corrupt("the click signing key is missing")
            }
            return value
        }
        guard let key = ByteEncoding.fromHex(try box.reveal(sealed, purpose: purpose)), key.count == 32 else {
            throw StoreError.corrupt("the click signing key is unreadable")
        }
        return InstanceSecrets(clickSigningKey: key)
    }

    package static let purpose = "instance_meta.value"

    /// The value `instance_meta` keeps under `name`, if any.
    package static func meta(_ db: any SQLExecutor, name: String) throws -> String? {
        try db.first("SELECT value FROM instance_meta WHERE name = \(name)", as: MetaValue.self)?.value
    }

    private struct MetaValue: Decodable {
        let value: String
    }
}
