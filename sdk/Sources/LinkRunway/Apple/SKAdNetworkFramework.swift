// SKAdNetwork, in StoreKit: iOS only (Apple lists no tvOS or macOS). Compiled for iOS, and on Linux against the
// stand-in in AppleStandIns/ that type-checks it.
#if os(iOS) || LINKRUNWAY_APPLE_STANDINS
import StoreKit

/// Conversion values for SKAdNetwork postbacks (install postbacks only: SKAdNetwork has no re-engagement).
struct SKAdNetworkFramework: ConversionFramework {
    var name: String { "skadnetwork" }

    /// iOS 16.1 and later with a coarse value: the fine value, the coarse value and the lock. Without a coarse value,
    /// the fine-only call (iOS 15.4 and later), which cannot lock a window. Before iOS 15.4, the iOS 14 call, which
    /// reports no error.
    func update(fine: Int, coarse: CoarseValue?, lockWindow: Bool, conversionTag: String?) async throws {
        guard conversionTag == nil else { return }
        if let coarse, #available(iOS 16.1, *) {
            let value: SKAdNetwork.CoarseConversionValue = switch coarse { case .low: .low; case .medium: .medium; case .high: .high }
            try await SKAdNetwork.updatePostbackConversionValue(fine, coarseValue: value, lockWindow: lockWindow)
        } else if #available(iOS 15.4, *) {
            try await SKAdNetwork.updatePostbackConversionValue(fine)
        } else {
            SKAdNetwork.updateConversionValue(fine)
        }
    }
}
#endif
