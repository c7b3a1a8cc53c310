import Foundation
import RunwayCapabilities
import RunwayGeo
@testable import RunwayServer
import RunwayTestKit
import Testing

@Suite("Country database")
struct CountryDatabaseTests {
    /// A database of a few networks, written by our own writer of the format; read by libmaxminddb.
    static func database(in folder: TemporaryDirectory) throws -> String {
        var writer = CountryDatabaseWriter()
        writer.add("203.0.113.0/24", "FR")
        writer.add("198.51.100.0/25", "US")
        writer.add("198.51.100.128/25", "CA")
        writer.add("192.0.2.0/24", "JP", registeredOnly: true)
        writer.add("2001:db8:1::/48", "DE")
        return try writer.write(in: folder.url.path)
    }

    @Test("addresses are looked up in the mapped file: IPv4, IPv6, IPv4-mapped IPv6, the registered country as a fallback")
    func lookups() throws {
        let folder = TemporaryDirectory()
        let countries = try CountryDatabase(path: try Self.database(in: folder))
        #expect(countries.databaseType == "LinkRunway-Test-Country")
        #expect(countries.country(of: "203.0.113.7") == "FR")
        #expect(countries.country(of: "198.51.100.1") == "US")
        #expect(countries.country(of: "198.51.100.200") == "CA", "the other half of the /24 is another network")
        #expect(countries.country(of: "::ffff:203.0.113.9") == "FR", "as a dual-stack socket reports an IPv4 client")
        #expect(countries.country(of: "::FFFF:198.51.100.1") == "US")
        #expect(countries.country(of: "2001:db8:1:2::5") == "DE")
        #expect(countries.country(of: "192.0.2.44") == "JP", "no country of its own: the registered one")
        for nowhere in ["10.0.0.1", "2001:db8:2::1", "::1", "not an address", "", "203.0.113.7 ", "999.1.1.1"] {
            #expect(countries.country(of: nowhere) == nil, "\(nowhere)")
        }
    }

    @Test("a file that is not a MaxMind database is refused when the configuration is read, and a good one is opened then")
    func configuration() throws {
        let folder = TemporaryDirectory()
        let good = try Self.database(in: folder)
        let bad = folder.path("bad.mmdb")
        try "not a database".write(toFile: bad, atomically: true, encoding: .utf8)
        #expect(throws: CountryDatabaseError.self) { try CountryDatabase(path: bad) }
        #expect(throws: CountryDatabaseError.self) { try CountryDatabase(path: folder.path("missing.mmdb")) }
        #expect(throws: (any Error).self) { try ServerConfiguration.load(environment: ["LINKRUNWAY_COUNTRY_DATABASE": bad], flags: [:]) }
        let configuration = try ServerConfiguration.load(environment: [:], flags: ["--country-database": good])
        #expect(configuration.capabilities[LinksSettings.self].countries?.country(of: "203.0.113.1") == "FR")
        #expect(try ServerConfiguration.load(environment: [:], flags: [:]).capabilities[LinksSettings.self].countries == nil)
    }
}
