// As Probe.swift, for LinkRunwayAds.
func thePublisherAdapterIsCompiled() {
    if #available(iOS 17.4, *) { _ = SystemAppImpressions() }
}
