import RunwayHTTP
import RunwayKit
import RunwayStore

/// Counts the visits of link previews and bots, apart from clicks: a counter per link, UTC day, kind and client.
enum AutomatedVisits {
    /// What counted a visit: a token of `AutomatedClients`, or the request itself.
    static let headAgent = "HEAD"
    static let prefetchAgent = "prefetch"

    /// Adds one visit in the background: nothing is acknowledged to the client, so the answer does not wait for it.
    static func count(_ kind: AutomatedClientPattern.Kind, agent: String, link: LinkRecord, services: ServerServices) {
        let day = services.clock.nowMilliseconds() / 86_400_000
        services.metrics.increment("linkrunway_link_automated_visits_total", labels: [("kind", kind.rawValue)])
        let logger = services.logger
        services.store.write({ db in
            try LinkQueries.countAutomatedVisit(db, linkId: link.id, workspaceId: link.workspaceId, day: day, kind: kind.rawValue, agent: agent)
        }, completion: { error in
            if let error { logger.warn("a preview or bot visit was not counted", ["error": .string("\(error)")]) }
        })
    }

    static func declareMetrics(_ metrics: MetricsRegistry) {
        metrics.declareCounter("linkrunway_link_automated_visits_total", help: "Visits of links by previews and bots (never counted as clicks), by kind.")
    }
}
