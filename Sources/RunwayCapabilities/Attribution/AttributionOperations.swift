import LinkRunwayAPI
import RunwayHTTP
import RunwayKit

/// What the OpenAPI document says about each attribution route.
extension Operation {
    static let matchInstall = Operation(
        id: "matchInstall", summary: "First launch: the install's attribution and deep link, decided once and kept",
        tag: "Installs", access: Access.client, requestSchema: .of(MatchInstallRequest.self),
        // Room for nine signed app transactions (the shared one and AppTransaction.all's eight) of up to 16 KiB each.
        responses: [.json(200, InstallMatch.self, "The stored answer (the same for every later call).")], maxBodyBytes: 160 * 1024, rateLimited: true)

    static let listInstalls = Operation(
        id: "listInstalls", summary: "Recent installs, newest first: how each was attributed, and whether it was simulated",
        tag: "Installs", access: Access.management, responses: [.json(200, Page<InstallSummary>.self, "A page of installs.")], query: InstallList.query, errors: [404])

    static let explainInstall = Operation(
        id: "explainInstall", summary: "Why an install was attributed (or not): candidates, rules, settings, winner",
        tag: "Installs", access: Access.management, responses: [.json(200, AttributionExplanation.self, "The explanation.")],
        query: [QueryParameterDoc("appId", "The app, when the install id is known in more than one of the workspace's apps.")])

    static let recordImpression = Operation(
        id: "recordImpression", summary: "An ad was shown to a device (for view-through matching); only a keyed hash of its address is kept",
        tag: "Installs", access: Access.management, requestSchema: .of(ImpressionRequest.self),
        responses: [.json(201, Impression.self, "Recorded.")], maxBodyBytes: 8 * 1024, idempotent: true)

    static let recordEvent = Operation(
        id: "recordEvent", summary: "Record one event of an install (a retry with the same eventId is stored once)",
        tag: "Events", access: .keys(["publishable", "server"]), requestSchema: .of(EventRequest.self),
        responses: [.json(201, EventResult.self, "Stored."), .json(200, EventResult.self, "Already stored before (a retry).")],
        maxBodyBytes: 16 * 1024, errors: [404, 409], rateLimited: true)

    static let listEvents = Operation(
        id: "listEvents", summary: "Recent events, newest received first, with their install and whether it was simulated",
        tag: "Events", access: Access.management, responses: [.json(200, Page<RecentEvent>.self, "A page of events.")], query: EventList.query, errors: [404])

    static let recordEvents = Operation(
        id: "recordEvents", summary: "Record up to 500 events; each gets its own result, the good ones are stored",
        tag: "Events", access: .keys(["publishable", "server"]), requestSchema: .of(EventBatchRequest.self),
        responses: [.json(200, EventBatchResponse.self, "One result per event, in order.")], maxBodyBytes: 2 * 1024 * 1024, rateLimited: true)

    static let funnelReport = Operation(
        id: "funnelReport", summary: "Clicks, installs, opens, events by type and net revenue by currency, grouped",
        tag: "Reports", access: Access.management,
        responses: [.json(200, FunnelReport.self, "The report (send Accept: text/csv for CSV).")],
        query: ReportQuery.documentation(FunnelReports.groupings)
            + [QueryParameterDoc("includeSimulated", "true to count simulated installs (POST /v1/simulate/installs) and their events; left out by default."),
               QueryParameterDoc("stores", "consumer to leave out installs whose signed app transactions named only education or enterprise stores, and their events; all (the default) counts every install.")])

    static let simulateClick = Operation(
        id: "simulateClick", summary: "Follow a link as a device would (default: an iPhone), recording the click",
        tag: "Simulation", access: Access.management, requestSchema: .of(SimulateClickRequest.self),
        responses: [.json(201, SimulatedClick.self, "The recorded click and where the device would have gone.")], maxBodyBytes: 8 * 1024,
        errors: [404, 410])

    static let simulateInstall = Operation(
        id: "simulateInstall", summary: "A first launch as the SDK would send it, from a chosen address",
        tag: "Simulation", access: Access.management, requestSchema: .of(SimulateInstallRequest.self),
        responses: [.json(200, InstallMatch.self, "The stored answer.")], maxBodyBytes: 8 * 1024)
}
