import AppleFormats
import LinkRunwayAPI

/// Which builds an app lets attest, by the launch validation category an iOS 27 device writes into its attestation
/// (`AppAttestExtensions`). Devices on earlier systems write none: `store` lets them through, `store_only` does not.
enum AttestBuilds {
    /// Apple's launch validation categories of apps the App Store or TestFlight delivered.
    static let appStore: UInt32 = 4, testFlight: UInt32 = 2

    /// The names of the categories shown with a key; another number is shown as `category_<n>`.
    static let names: [UInt32: String] = [2: "testflight", 3: "development", 4: "app_store", 5: "enterprise", 6: "developer_id"]

    static func name(_ category: UInt32) -> String { names[category] ?? "category_\(category)" }

    /// Why the app's `builds` setting refuses an attestation with this category, or nil when it is let through.
    static func refusal(builds: String, category: UInt32?) -> String? {
        switch (builds, category) {
        case ("any", _), ("store", nil): return nil
        case (_, let category?) where category == appStore || category == testFlight: return nil
        case (_, let category?): return "the app accepts App Store and TestFlight builds only; this one is \(name(category))"
        case (_, nil): return "the app accepts App Store and TestFlight builds only, and this device did not say which build it runs (iOS 27 does)"
        }
    }
}
