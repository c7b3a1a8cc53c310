/// Ad network ids as Apple registers them (`example123.adattributionkit`, `example123.skadnetwork`): lower-case
/// letters, digits, dots, hyphens and underscores. Apple matches them exactly, in lower case, in an impression's `kid`
/// and in a publisher app's `AdNetworkIdentifiers`
/// (https://developer.apple.com/documentation/adattributionkit/configuring-a-publisher-app), so the API and the
/// command line refuse an id with capitals rather than sign under it.
public enum AdNetworkIdentifier {
    /// What is wrong with `id` as an ad network id, or nil when nothing is.
    public static func problem(_ id: String) -> String? {
        guard (3...100).contains(id.count), id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_") }) else {
            return "must be an ad network id such as example.skadnetwork"
        }
        // Refused rather than lower-cased: a copy with capitals is wrong wherever else it is used too (the publisher's
        // Info.plist), and saying so beats signing under an id other than the one given.
        guard id == id.lowercased() else {
            return "ad network ids are lower-case, as Apple registers and matches them: use \(id.lowercased())"
        }
        return nil
    }
}
