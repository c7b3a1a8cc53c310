/// Where App Attest should exist, so that `isSupported == false` there is a sign of fraud (Apple names an unsupported
/// device among them) rather than a fact of the platform: iPhones, iPads and Apple TVs have it; a Mac has it from macOS
/// 27, whether the app is a Mac app, a Mac Catalyst app or an iPhone or iPad app running on the Mac; simulators and app
/// extensions never have it.
enum AppAttestExpectation {
    enum Host: Sendable { case device, simulator, appExtension }
    enum System: Sendable { case iOS, tvOS, macOS, macCatalyst, iOSAppOnMac }

    static func expected(host: Host, system: System, version27OrLater: Bool) -> Bool {
        guard host == .device else { return false }
        switch system {
        case .iOS, .tvOS: return true
        case .macOS, .macCatalyst, .iOSAppOnMac: return version27OrLater
        }
    }
}
