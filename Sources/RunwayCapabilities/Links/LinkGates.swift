import RunwayHTTP
import RunwayKit

/// What a link answers outside its life: before its start, after its expiry and once its click limit is reached.
/// Each goes to the link's fallback page when it has one (a 302, never counted as a click) or shows its own page; the
/// link is kept either way.
enum LinkGates {
    /// The answer of a link that is not open at `now` (for every client, previews and bots included), or nil.
    static func closed(_ link: LinkRecord, at now: Int64, metrics: MetricsRegistry) -> HTTPResponse? {
        if !link.hasStarted(at: now) { return fallback(link.fallbacks.beforeStart, "before_start", metrics) ?? LinkPages.notFound() }
        if link.isExpired(at: now) { return fallback(link.fallbacks.expired, "expired", metrics) ?? LinkPages.expired(fallback: link.webURL) }
        return nil
    }

    /// The answer once the click limit is reached.
    static func overLimit(_ link: LinkRecord, metrics: MetricsRegistry) -> HTTPResponse {
        fallback(link.fallbacks.overLimit, "over_limit", metrics) ?? LinkPages.overLimit(fallback: link.webURL)
    }

    private static func fallback(_ url: String?, _ reason: String, _ metrics: MetricsRegistry) -> HTTPResponse? {
        guard let url else { return nil }
        metrics.increment("linkrunway_link_fallbacks_total", labels: [("reason", reason)])
        return RedirectHandlers.redirect(to: url)
    }

    static func declareMetrics(_ metrics: MetricsRegistry) {
        metrics.declareCounter("linkrunway_link_fallbacks_total",
                               help: "Redirects to a link's fallback page (before its start, after its expiry, over its click limit), never clicks.")
    }
}
