// AdServices: iOS 14.3 and later (no tvOS).
#if (os(iOS) || LINKRUNWAY_APPLE_STANDINS) && canImport(AdServices)
import AdServices

/// The Apple Ads attribution token.
struct SystemAdServices: AdServicesTokenProvider {
    func attributionToken() throws -> String { try AAAttribution.attributionToken() }
}
#endif
