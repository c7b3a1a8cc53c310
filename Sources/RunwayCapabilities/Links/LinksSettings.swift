import Foundation
import RunwayGeo
import RunwayKit
import RunwayOutbound

/// What an operator sets for links: the DNS server domain checks ask, more User-Agents of previews and bots, and the
/// country database behind country rules.
package struct LinksSettings: CapabilitySettings {
    /// The DNS server that domain verification asks, instead of the system's.
    package var dnsServer: TXTLookup.Server?
    /// The operator's User-Agent patterns of previews and bots, beside the built-in ones.
    package var extraAutomatedClients: [AutomatedClientPattern] = []
    /// Countries of client addresses; nil when the operator gave no database.
    package var countries: CountryDatabase?

    package init() {}

    package static let definitions: [SettingDefinition<LinksSettings>] = [
        SettingDefinition(environment: "LINKRUNWAY_DNS_SERVER", flag: "--dns-server", defaultValue: "the system's resolvers",
                          summary: "An IPv4 DNS server (`address` or `address:port`) that link domain verification asks for its TXT record.") { s, v in
            guard let server = TXTLookup.Server(v) else { return false }
            s.dnsServer = server
            return true
        },
        SettingDefinition(environment: "LINKRUNWAY_AUTOMATED_CLIENTS_FILE", flag: "--automated-clients-file", defaultValue: "none (the built-in list only)",
                          summary: "A file of more User-Agent patterns of link previews and bots, one a line: `preview TEXT` or `bot TEXT` (matched without case anywhere in the User-Agent; `#` starts a comment line). They are answered like the built-in ones and never counted as clicks.") { s, v in
            guard let text = try? String(contentsOfFile: v, encoding: .utf8), let patterns = AutomatedClientPattern.parse(text) else { return false }
            s.extraAutomatedClients = patterns
            return true
        },
        SettingDefinition(environment: "LINKRUNWAY_COUNTRY_DATABASE", flag: "--country-database", defaultValue: "none (country conditions never match)",
                          summary: "A MaxMind-format country database (`.mmdb`: GeoLite2 or GeoIP2 Country or City, or another in that format), memory-mapped once at start. Links' country rules and the country recorded on clicks come from it; the address itself is never stored. Without it no click has a country and no country rule matches.") { s, v in
            guard let database = try? CountryDatabase(path: v) else { return false }
            s.countries = database
            return true
        },
    ]
}

extension ServerServices {
    /// Countries of client addresses (`LINKRUNWAY_COUNTRY_DATABASE`); nil when the operator gave no database.
    package var countries: CountryDatabase? { settings[LinksSettings.self].countries }
}
