import RunwayCrypto

/// Ids are a type prefix and 20 random base32 characters (100 bits): `app_0k3…`. Unguessable, so knowing one id says
/// nothing about another.
public enum Identifier {
    public static func make(_ prefix: String) -> String {
        prefix + "_" + SecureRandom.string(length: 20, alphabet: SecureRandom.base32)
    }

    /// True when `id` has the prefix and the shape of our ids (cheap rejection of junk before a query).
    public static func isWellFormed(_ id: String, prefix: String) -> Bool {
        guard id.hasPrefix(prefix + "_") else { return false }
        let rest = id.utf8.dropFirst(prefix.utf8.count + 1)
        return rest.count >= 8 && rest.count <= 64 && rest.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x61 && b <= 0x7a) || (b >= 0x41 && b <= 0x5a)
        }
    }
}
