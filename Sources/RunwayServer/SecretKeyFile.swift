import Foundation
import RunwayCapabilities
import RunwayConsole
import RunwayCrypto
import RunwayKit
import RunwayStore

/// The key that seals the secrets the server must be able to use again (the instance key that signs click ids, the day
/// keys of address hashes, webhook signing secrets, ad networks' private keys), kept in a file outside the database so
/// that a copy of the database alone reveals none of them. The first start creates the file (mode 0600); every server
/// of a PostgreSQL deployment needs a copy of it. The database keeps a check of the key, so a server with another key,
/// or none, refuses to start instead of writing secrets no other server can open.
enum SecretKeyFile {
    struct Refused: Error, CustomStringConvertible {
        let description: String
    }

    /// The platform's sealed columns; each capability adds its own (`Capability.sealedColumns`).
    static let platformSealedColumns = [
        SealedColumn("instance_meta", key: "name", column: "value", rows: "name = 'click_signing_key'"),
        SealedColumn("address_keys", key: "day", column: "secret"),
    ]

    static var sealedColumns: [SealedColumn] { platformSealedColumns + ServerApplication.capabilities.flatMap(\.sealedColumns) }

    /// Reads the key file (creating it on a database that has never sealed anything) and checks it against the
    /// database's record of the key.
    static func load(path: String, store: any Store) async throws -> SecretBox {
        let recorded = try await store.read { db in
            try InstanceSecrets.meta(db, name: "secret_key_check")
        }
        let box: SecretBox
        if FileManager.default.fileExists(atPath: path) {
            box = try read(path)
        } else if recorded != nil {
            throw Refused(description: "the secret key file \(path) is missing, and this database's secrets are sealed with a key: copy the key "
                          + "file from the server that first started on this database (LINKRUNWAY_SECRET_KEY_FILE)")
        } else {
            box = try create(path)
        }
        let fingerprint = box.fingerprint
        let agreed = try await store.write { db -> String in
            try db.execute("INSERT INTO instance_meta (name, value) VALUES ('secret_key_check', \(fingerprint)) ON CONFLICT (name) DO NOTHING")
            return try InstanceSecrets.meta(db, name: "secret_key_check") ?? ""
        }
        guard agreed == fingerprint else {
            throw Refused(description: "the secret key file \(path) is not the key this database's secrets are sealed with; every server of "
                          + "one database needs a copy of the same file (LINKRUNWAY_SECRET_KEY_FILE)")
        }
        return box
    }

    /// Seals what was stored before sealing existed, or before this version sealed its column; returns how many values
    /// it sealed. While a server of an older version runs on the database, which might not read a value sealed here,
    /// nothing changes and the answer is nil: the caller tries again once they are gone (`ServerRuntime.beat`).
    static func sealStored(_ store: any Store, box: SecretBox, now: Int64) async throws -> Int? {
        try await store.write { db in
            guard try ServerInstance.olderAlive(db, now: now, newestStep: Schema.newestStep) == 0 else { return nil }
            var sealed = 0
            for place in sealedColumns {
                for row in try db.query("SELECT \(raw: place.key) AS k, \(raw: place.column) AS v FROM \(raw: place.table) WHERE \(raw: place.rows)",
                                        as: KeyedValue.self) {
                    let value = row.v
                    guard !SecretBox.isSealed(value) else { continue }
                    let locked = box.seal(value, purpose: "\(place.table).\(place.column)")
                    sealed += try db.execute("""
                        UPDATE \(raw: place.table) SET \(raw: place.column) = \(locked) WHERE \(raw: place.key) = \(row.k) AND \(raw: place.column) = \(value)
                        """)
                }
            }
            return sealed
        }
    }

    static func read(_ path: String) throws -> SecretBox {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8),
              let key = ByteEncoding.fromHex(text.trimmingCharacters(in: .whitespacesAndNewlines)), let box = SecretBox(key: key) else {
            throw Refused(description: "the secret key file \(path) is unreadable: it must hold 64 hex characters")
        }
        return box
    }

    /// Writes a new key to `path` readable by its owner only, never over an existing file (another process that got
    /// there first wins, and its key is read).
    static func create(_ path: String) throws -> SecretBox {
        let key = SecureRandom.bytes(32)
        let staged = path + ".\(getpid()).new"
        let fd = open(staged, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Refused(description: "cannot create the secret key file \(path): \(String(cString: strerror(errno)))") }
        let text = Array((ByteEncoding.hex(key) + "\n").utf8)
        let written = text.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd) == 0
        close(fd)
        defer { unlink(staged) }
        guard written == text.count, synced else { throw Refused(description: "cannot write the secret key file \(path)") }
        if link(staged, path) != 0 {
            guard errno == EEXIST else { throw Refused(description: "cannot create the secret key file \(path): \(String(cString: strerror(errno)))") }
            return try read(path)
        }
        let directory = open((path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent, O_RDONLY)
        if directory >= 0 {
            fsync(directory)
            close(directory)
        }
        guard let box = SecretBox(key: key) else { throw Refused(description: "the secret key made for \(path) is not 32 bytes") }
        return box
    }

    /// A stored secret (`v`) with its row's key (`k`).
    private struct KeyedValue: Decodable {
        let k: String
        let v: String
    }
}
