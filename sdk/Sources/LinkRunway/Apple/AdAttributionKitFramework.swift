// AdAttributionKit: iOS 17.4 and later. Weak-linked (`@_weakLinked`), so every reference to it is weak and the
// framework is loaded optionally: the app still launches on iOS 15 and 16, where it does not exist. The stand-in
// build checks that the references are weak (AppleStandIns/check.sh).
#if (os(iOS) || LINKRUNWAY_APPLE_STANDINS) && canImport(AdAttributionKit)
@_weakLinked import AdAttributionKit

/// Conversion values for AdAttributionKit postbacks.
@available(iOS 17.4, *)
struct AdAttributionKitFramework: ConversionFramework {
    struct ReengagementUnsupported: Error {}

    var name: String { "adattributionkit" }

    /// Re-engagement postbacks exist from iOS 18.0.
    var takesReengagementUpdates: Bool {
        if #available(iOS 18.0, *) { return true }
        return false
    }

    /// On iOS 18 and later an install update names the install postbacks (`conversionTypes: [.install]`), so it
    /// still reaches them after a re-engagement; a re-engagement update carries its conversion tag (iOS 18.4), or on
    /// 18.0–18.3, or when the open carried an empty tag, goes to re-engagement postbacks. On 17.4–17.x, the calls that
    /// update every postback.
    func update(fine: Int, coarse: CoarseValue?, lockWindow: Bool, conversionTag: String?) async throws {
        let value: CoarseConversionValue? = coarse.map { coarse in switch coarse { case .low: .low; case .medium: .medium; case .high: .high } }
        if let conversionTag {
            if #available(iOS 18.4, *), !conversionTag.isEmpty {
                try await Postback.updateConversionValue(PostbackUpdate(fineConversionValue: fine, lockPostback: lockWindow, conversionTag: conversionTag,
                                                                        coarseConversionValue: value, conversionTypes: nil))
            } else if #available(iOS 18.0, *) {
                try await Postback.updateConversionValue(PostbackUpdate(fineConversionValue: fine, lockPostback: lockWindow, coarseConversionValue: value,
                                                                        conversionTypes: [.reengagement]))
            } else {
                throw ReengagementUnsupported()
            }
        } else if #available(iOS 18.0, *) {
            try await Postback.updateConversionValue(PostbackUpdate(fineConversionValue: fine, lockPostback: lockWindow, coarseConversionValue: value,
                                                                    conversionTypes: [.install]))
        } else if let value {
            try await Postback.updateConversionValue(fine, coarseConversionValue: value, lockPostback: lockWindow)
        } else {
            try await Postback.updateConversionValue(fine, lockPostback: lockWindow)
        }
    }
}
#endif
