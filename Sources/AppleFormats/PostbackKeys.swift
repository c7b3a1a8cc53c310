import RunwayCrypto

/// The public keys postbacks are checked against: Apple's, or a test authority's (so tests can sign postbacks shaped
/// like Apple's where Apple publishes no sample).
public struct PostbackKeys: Sendable {
    /// One AdAttributionKit key, named by the `kid` of the JWS header it verifies.
    public struct AdAttributionKitKey: Sendable {
        public let key: PublicKey
        /// True for Apple's development keys: their postbacks count only where development is allowed.
        public let development: Bool

        public init(key: PublicKey, development: Bool) {
            self.key = key
            self.development = development
        }
    }

    /// SKAdNetwork 2.1 and later.
    public var skadnetworkP256: PublicKey?
    /// SKAdNetwork 1.0 and 2.0.
    public var skadnetworkP192: PublicKey?
    /// AdAttributionKit, by `kid`.
    public var adAttributionKit: [String: AdAttributionKitKey]

    public init(skadnetworkP256: PublicKey?, skadnetworkP192: PublicKey?, adAttributionKit: [String: AdAttributionKitKey]) {
        self.skadnetworkP256 = skadnetworkP256
        self.skadnetworkP192 = skadnetworkP192
        self.adAttributionKit = adAttributionKit
    }

    /// Apple's published keys: what the server trusts.
    public static let apple = PostbackKeys(
        skadnetworkP256: SKAdNetworkPostback.appleP256Key, skadnetworkP192: SKAdNetworkPostback.appleP192Key,
        adAttributionKit: AdAttributionKitPostback.keys)
}
