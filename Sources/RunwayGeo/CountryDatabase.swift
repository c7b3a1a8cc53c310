import CMaxMindDB
import Glibc

/// A MaxMind-format database (GeoLite2 Country, GeoIP2 Country or City, DB-IP's country files…) that the operator
/// provides, opened once and memory-mapped: a lookup walks the mapped tree and allocates nothing. It answers a client
/// address's country as its ISO 3166-1 alpha-2 code, which is all the server keeps; the address itself is never stored.
///
/// libmaxminddb allows lookups from many threads on one opened database, which is never changed after `init`.
public final class CountryDatabase: @unchecked Sendable {
    private var database = MMDB_s()
    /// `database_type` from the file's metadata (`GeoLite2-Country`…).
    public let databaseType: String
    /// The record paths asked for, in order: the country the address is in, else the one its block is registered to.
    private let paths: [UnsafeMutablePointer<UnsafePointer<CChar>?>]

    /// Opens the file at `path` (MMDB_MODE_MMAP), or says why it cannot be read.
    public init(path: String) throws(CountryDatabaseError) {
        let status = MMDB_open(path, UInt32(MMDB_MODE_MMAP), &database)
        guard status == MMDB_SUCCESS else {
            throw CountryDatabaseError(description: "\(path) is not a MaxMind database: " + String(cString: MMDB_strerror(status)))
        }
        databaseType = database.metadata.database_type.map { String(cString: $0) } ?? ""
        paths = [["country", "iso_code"], ["registered_country", "iso_code"]].map { keys in
            let path = UnsafeMutablePointer<UnsafePointer<CChar>?>.allocate(capacity: keys.count + 1)
            for (index, key) in keys.enumerated() { path[index] = UnsafePointer(strdup(key)) }
            path[keys.count] = nil
            return path
        }
    }

    deinit {
        for path in paths {
            var index = 0
            while let key = path[index] {
                free(UnsafeMutablePointer(mutating: key))
                index += 1
            }
            path.deallocate()
        }
        MMDB_close(&database)
    }

    /// The two-letter country of a numeric IPv4 or IPv6 address (`203.0.113.7`, `2001:db8::1`, `::ffff:203.0.113.7`),
    /// upper case; nil when the address is not numeric, the database has no country for it, or it holds an IPv6
    /// address and the database only IPv4.
    public func country(of address: String) -> String? {
        var result: MMDB_lookup_result_s?
        var error: Int32 = 0
        if let v4 = Self.ipv4(address) {
            var socket = sockaddr_in()
            socket.sin_family = sa_family_t(AF_INET)
            socket.sin_addr = v4
            result = withUnsafePointer(to: &socket) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { MMDB_lookup_sockaddr(&database, $0, &error) }
            }
        } else {
            var socket = sockaddr_in6()
            guard inet_pton(AF_INET6, address, &socket.sin6_addr) == 1 else { return nil }
            socket.sin6_family = sa_family_t(AF_INET6)
            result = withUnsafePointer(to: &socket) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { MMDB_lookup_sockaddr(&database, $0, &error) }
            }
        }
        guard error == MMDB_SUCCESS, var found = result, found.found_entry else { return nil }
        for path in paths {
            var data = MMDB_entry_data_s()
            guard MMDB_aget_value(&found.entry, &data, path) == MMDB_SUCCESS, data.has_data,
                  data.type == UInt32(MMDB_DATA_TYPE_UTF8_STRING), data.data_size == 2, let text = data.utf8_string else { continue }
            let first = UInt8(bitPattern: text[0]), second = UInt8(bitPattern: text[1])
            guard Self.isUpperLetter(first), Self.isUpperLetter(second) else { continue }
            return String(decoding: [first, second], as: UTF8.self)
        }
        return nil
    }

    /// An IPv4 address, also written as IPv4-mapped IPv6 (`::ffff:a.b.c.d`, as a dual-stack socket reports it).
    private static func ipv4(_ address: String) -> in_addr? {
        var v4 = in_addr()
        let mapped = address.utf8.count > 7 && address.utf8.prefix(7).elementsEqual("::ffff:".utf8) { ($0 | 0x20) == $1 }
        return inet_pton(AF_INET, mapped ? String(address.dropFirst(7)) : address, &v4) == 1 ? v4 : nil
    }

    private static func isUpperLetter(_ byte: UInt8) -> Bool { byte >= 0x41 && byte <= 0x5a }
}

/// Why the country database could not be opened.
public struct CountryDatabaseError: Error, CustomStringConvertible, Sendable {
    public let description: String
}
