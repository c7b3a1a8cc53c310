import RunwayGeo

/// What a rule may ask of a request, each found from the request alone (no fingerprint, nothing stored about the
/// device) and only when a rule first asks: the country of the address, the device class from the User-Agent, the OS
/// version, the first language of Accept-Language, and the time.
struct RequestFacts {
    let client: ClientClass
    let userAgent: String?
    let acceptLanguage: String?
    let address: String?
    let countries: CountryDatabase?
    let now: Int64

    init(client: ClientClass, userAgent: String?, acceptLanguage: String?, address: String?, countries: CountryDatabase?, now: Int64) {
        self.client = client
        self.userAgent = userAgent
        self.acceptLanguage = acceptLanguage
        self.address = address
        self.countries = countries
        self.now = now
    }

    /// The country of the address in the operator's database; nil without one.
    lazy var country: String? = address.flatMap { countries?.country(of: $0) }

    lazy var device: DeviceClass = DeviceClass(userAgent: userAgent, client: client)

    lazy var osVersion: OSVersion? = client.osVersion.flatMap { OSVersion($0) }

    /// Whether the first language of Accept-Language is `tag` (lower-case bytes) or one of its subtags.
    func firstLanguage(is tag: [UInt8]) -> Bool { AcceptLanguage.first(acceptLanguage, is: tag) }
}
