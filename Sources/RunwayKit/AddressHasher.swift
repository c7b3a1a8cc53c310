import Foundation
import RunwayCrypto
import RunwayStore
import Synchronization

/// Client addresses are never stored: only HMAC-SHA256 of the address under a random key of the UTC day. Keys live
/// in the database (shared by every process), sealed with the secret key file, and are deleted after two days, after
/// which nobody, the operator included, can tell whether two old hashes came from one address. While a day key lives,
/// its hashes are pseudonymous: whoever holds both the database and the key file can test a guessed address.
public final class AddressHasher: Sendable {
    private let store: any Store
    private let box: SecretBox
    /// The keys loaded, by day (days since 1970 in UTC), prepared for hashing.
    private let keys = Mutex<[Int64: HMACSHA256Key]>([:])
    /// Days whose key is kept (today and yesterday, for matches that straddle midnight).
    package static let keptDays = 2

    public init(store: any Store, box: SecretBox) {
        self.store = store
        self.box = box
    }

    /// 32 hex characters (128 bits) of the keyed hash of `address` for the day of `milliseconds`.
    public func hash(_ address: String, at milliseconds: Int64) async throws -> String {
        let number = Self.dayNumber(milliseconds)
        let key: HMACSHA256Key
        if let cached = keys.withLock({ $0[number] }) {
            key = cached
        } else {
            key = HMACSHA256Key(try await load(day: Self.day(milliseconds), now: milliseconds))
            keys.withLock { keys in
                if keys.count > 4 { keys.removeAll() }
                keys[number] = key
            }
        }
        return Self.hash(address, key)
    }

    /// The same hash when the day's key is already in memory; nil when only `hash(_:at:)` can make it.
    public func cachedHash(_ address: String, at milliseconds: Int64) -> String? {
        guard let key = keys.withLock({ $0[Self.dayNumber(milliseconds)] }) else { return nil }
        return Self.hash(address, key)
    }

    /// The first 16 bytes of the MAC, in hex.
    private static func hash(_ address: String, _ key: HMACSHA256Key) -> String {
        ByteEncoding.hex(key.authenticate(address), count: 16)
    }

    /// `2026-11-30` in UTC.
    package static func day(_ milliseconds: Int64) -> String { String(Timestamp.iso(milliseconds).prefix(10)) }

    /// Whole days since 1970-01-01 in UTC.
    static func dayNumber(_ milliseconds: Int64) -> Int64 {
        milliseconds >= 0 ? milliseconds / 86_400_000 : (milliseconds - 86_399_999) / 86_400_000
    }

    private func load(day: String, now: Int64) async throws -> [UInt8] {
        let candidate = box.seal(ByteEncoding.hex(SecureRandom.bytes(32)), purpose: "address_keys.secret")
        let stored: String = try await store.write { db in
            try db.execute("INSERT INTO address_keys (day, secret, created_at) VALUES (\(day), \(candidate), \(now)) ON CONFLICT (day) DO NOTHING")
            guard let value = try db.first("SELECT secret FROM address_keys WHERE day = \(day)", as: DayKey.self)?.secret else {
                throw StoreError.corrupt("the address key of \(day) is missing")
            }
            return value
        }
        guard let key = ByteEncoding.fromHex(try box.reveal(stored, purpose: "address_keys.secret")) else {
            throw StoreError.corrupt("the address key of \(day) is unreadable")
        }
        return key
    }

    /// Deletes the keys of days before the kept ones; returns how many went.
    public static func forgetOldKeys(store: any Store, now milliseconds: Int64) async throws -> Int {
        let oldest = day(milliseconds - Int64(keptDays - 1) * 86_400_000)
        return try await store.write { db in try db.execute("DELETE FROM address_keys WHERE day < \(oldest)") }
    }

    /// A day's key, sealed.
    private struct DayKey: Decodable {
        let secret: String
    }
}
