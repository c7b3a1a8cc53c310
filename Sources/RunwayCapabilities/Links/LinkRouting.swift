import Foundation
import LinkRunwayAPI

/// A link's rules, variants and destinations compiled once, when the link is read into the redirect cache: conditions
/// as bit masks, packed country codes and lower-case language bytes, cumulative variant weights, and every destination
/// with the link's UTM parameters already added. A redirect evaluates it with no store read and no parsing.
struct LinkRouting: Sendable, Equatable {
    /// A destination URL, the UTM parameters it lacks (none for the App Store and Google Play, which are not web
    /// pages), and the URL with them added.
    struct Destination: Sendable, Equatable {
        let url: String
        let missingUTM: [QueryPair]
        let tagged: String

        init(_ url: String, utm: [QueryPair]) {
            self.url = url
            let components = URLComponents(string: url)
            let host = components?.host?.lowercased() ?? ""
            let store = ["apps.apple.com", "itunes.apple.com", "play.google.com"].contains(host)
            let present = Set(components?.queryItems?.map(\.name) ?? [])
            missingUTM = store ? [] : utm.filter { !present.contains($0.name) }
            tagged = appendingQuery(url, missingUTM.map { (name: $0.name, value: $0.value) })
        }

        /// The address a click goes to: the tagged URL, then the click's own query when the link passes it on (a
        /// `utm_…` parameter of the click's replaces the link's).
        func address(passing query: [(name: String, value: String)]) -> String {
            guard !query.isEmpty else { return tagged }
            let kept = missingUTM.filter { pair in !query.contains { $0.name == pair.name } }
            return appendingQuery(appendingQuery(url, kept.map { (name: $0.name, value: $0.value) }), query)
        }
    }

    struct QueryPair: Sendable, Equatable {
        let name: String
        let value: String
    }

    struct Variant: Sendable, Equatable {
        let name: String
        let destination: Destination?
        let preview: LinkPreview?
    }

    /// Variants with their cumulative weights: a draw below `bounds[i]` (and not below the one before) is variant `i`.
    struct Variants: Sendable, Equatable {
        let variants: [Variant]
        let bounds: [UInt64]

        init?(_ list: [LinkVariant], utm: [QueryPair]) {
            var total: UInt64 = 0
            var bounds: [UInt64] = []
            for variant in list {
                total += UInt64(max(0, variant.weight))
                bounds.append(total)
            }
            guard total > 0 else { return nil }
            variants = list.map { Variant(name: $0.name, destination: $0.url.map { Destination($0, utm: utm) }, preview: $0.preview) }
            self.bounds = bounds
        }

        /// The variant of a draw from 0 to the total weight (excluded).
        func variant(at draw: UInt64) -> Variant {
            var index = 0
            while index < bounds.count - 1 && draw >= bounds[index] { index += 1 }
            return variants[index]
        }

        func pick<R: RandomNumberGenerator>(_ random: inout R) -> Variant {
            variant(at: UInt64.random(in: 0..<bounds[bounds.count - 1], using: &random))
        }
    }

    /// What a redirect comes to: the rule that held (nil for the default), its destination and its variant.
    struct Choice: Sendable, Equatable {
        let rule: Int?
        let destination: Destination?
        let variant: Variant?
    }

    /// The query parameter that marks a visit from the link's QR code (`?qr=1`); never passed on.
    static let qrMarker = "qr"
    /// Carries the signed click of an "open in the app" page (`LinkPages.inAppBrowser`) when the person follows the link
    /// again from their browser: that visit is the same click, never a second.
    static let continueMarker = "lr_continue"
    /// The link's own query parameters, never passed on to a destination.
    static let markers: Set<String> = [qrMarker, continueMarker]

    let rules: [CompiledRule]
    /// The default's variants, used when no rule holds.
    let variants: Variants?
    let ios: Destination?
    let android: Destination?
    let web: Destination?

    init(_ link: LinkRecord) {
        let utm = link.utm.parameters.map { QueryPair(name: $0.name, value: $0.value) }
        rules = link.rules.map { CompiledRule($0, utm: utm) }
        variants = Variants(link.variants, utm: utm)
        ios = link.iosURL.map { Destination($0, utm: utm) }
        android = link.androidURL.map { Destination($0, utm: utm) }
        web = link.webURL.map { Destination($0, utm: utm) }
    }

    /// The first rule that holds for the request, its variant (drawn by weight), or the default and its variant.
    func choose<R: RandomNumberGenerator>(_ facts: inout RequestFacts, random: inout R) -> Choice {
        for (index, rule) in rules.enumerated() where rule.holds(&facts) {
            let variant = rule.variants?.pick(&random)
            return Choice(rule: index, destination: variant?.destination ?? rule.destination, variant: variant)
        }
        let variant = variants?.pick(&random)
        return Choice(rule: nil, destination: variant?.destination, variant: variant)
    }

    /// Where a device goes once the choice is made: the redirect's target, the interstitial's main button (iOS, with
    /// the interstitial on) and the web page. A chosen destination goes before the platform's own, for every platform
    /// and on the interstitial too; the App Store link made from an App Store ID gets neither the query nor UTM.
    func target(_ choice: Choice, client: ClientClass, appStore: String?, interstitial: Bool,
                query: [(name: String, value: String)]) -> (target: String?, interstitialStore: String?, web: String?) {
        let web = self.web?.address(passing: query)
        if let chosen = choice.destination {
            let address = chosen.address(passing: query)
            if case .ios = client, interstitial { return (address, address, web) }
            return (address, nil, web)
        }
        switch client {
        case .ios:
            let page = ios?.address(passing: query)
            let store = interstitial ? (ios?.tagged ?? appStore) : nil
            return (page ?? appStore ?? web, store, web)
        case .android:
            return (android?.address(passing: query) ?? web, nil, web)
        case .desktop, .crawler:
            return (web ?? appStore, nil, web)
        }
    }
}

/// `LinkRouting` held by a record: derived from the record's other fields, so records are equal when those are.
struct CompiledRouting: Sendable, Equatable {
    let value: LinkRouting?

    init(_ value: LinkRouting? = nil) { self.value = value }

    static func == (lhs: CompiledRouting, rhs: CompiledRouting) -> Bool { true }
}
