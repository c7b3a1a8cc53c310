// Type-checked by availability.sh with the LinkRunway adapters for every iOS and Mac Catalyst target: it fails when
// an adapter's `#if` leaves that platform out (as 1.1.1's did Mac Catalyst), which the check would otherwise pass.
func theIOSAdaptersAreCompiled() {
    _ = SKAdNetworkFramework()
    _ = SystemAdServices()
    _ = SystemAppAttest()
    _ = SystemAppTransaction()
    _ = SystemKeychain()
    if #available(iOS 17.4, *) { _ = AdAttributionKitFramework() }
}
