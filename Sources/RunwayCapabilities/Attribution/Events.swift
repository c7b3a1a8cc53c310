import Foundation
import LinkRunwayAPI
import RunwayHTTP
import RunwayJSON
import RunwayKit
import RunwayStore

/// Events: idempotent per app and event id, each event written with its install's attribution.
package enum Events {
    package static let types = Set(EventRequest.types)
    static let revenueTypes: Set<String> = ["PURCHASE", "SUBSCRIPTION", "REFUND"]
    static let batchLimit = 500

    enum Outcome: Sendable {
        case stored(EventAttribution)
        case duplicate(EventAttribution)
        /// Refused (a `Refusal`, or what decoding the event threw).
        case rejected(any Error)
    }

    /// An event whose fields passed every check, ready to write.
    struct Checked: Sendable {
        let appId: String
        let workspaceId: String
        let eventId: String
        let type: String
        let name: String?
        let userId: String?
        let installId: String
        let occurredAt: Int64
        let amount: Int64?
        let currency: String?
        let properties: String?
        let attestation: String?
        let clickToken: String?

        init(_ event: EventRequest, principal: Principal, services: ServerServices) throws {
            guard (1...64).contains(event.eventId.utf8.count), event.eventId.utf8.allSatisfy({ b in
                (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || b == 0x2d || b == 0x5f || b == 0x2e || b == 0x3a
            }) else {
                throw RequestError.invalidField("eventId", "must be 1 to 64 letters, digits or - _ . :")
            }
            guard Events.types.contains(event.type) else {
                throw RequestError.invalidField("type", "must be one of \(Events.types.sorted().joined(separator: ", "))")
            }
            let revenue = Events.revenueTypes.contains(event.type)
            if revenue, principal.kind == .publishable {
                throw AttributionError.revenueRequiresServerKey(type: event.type)
            }
            if event.type == "CUSTOM", event.name == nil { throw RequestError.missingField("CUSTOM events need a name", field: "name") }
            name = try event.name.map { try Validate.name($0) }
            userId = try event.userId.map { value in
                guard (1...128).contains(value.utf8.count) else { throw RequestError.invalidField("userId", "must be 1 to 128 characters") }
                return value
            }
            if revenue {
                guard let amount = event.amount, amount >= 0 else {
                    throw RequestError.missingField("\(event.type) needs a non-negative integer amount in minor units", field: "amount")
                }
                guard let currency = event.currency, currency.utf8.count == 3, currency.utf8.allSatisfy({ $0 >= 0x41 && $0 <= 0x5a }) else {
                    throw RequestError.invalidField("currency", "must be an ISO 4217 code such as EUR")
                }
                self.amount = amount
                self.currency = currency
            } else {
                guard event.amount == nil, event.currency == nil else {
                    throw RequestError.invalidField("amount", "only PURCHASE, SUBSCRIPTION and REFUND carry an amount")
                }
                amount = nil
                currency = nil
            }
            guard let installId = try Validate.installID(event.installId, field: "installId") else {
                throw RequestError.missingField("installId is required", field: "installId")
            }
            self.installId = installId
            guard let occurred = try Validate.timestamp(event.timestamp, field: "timestamp") else {
                throw RequestError.missingField("timestamp is required", field: "timestamp")
            }
            guard occurred <= services.clock.nowMilliseconds() + 86_400_000 else {
                throw RequestError.invalidField("timestamp", "must not be more than a day ahead")
            }
            occurredAt = occurred
            properties = try event.properties.map { value in
                guard let text = try LinkValidate.metadata(value), text.utf8.count <= 4096 else {
                    throw RequestError.tooLarge("properties must be at most 4096 bytes of JSON", field: "properties")
                }
                return text
            }
            switch principal.kind {
            case .publishable:
                guard let own = principal.appId, let workspace = principal.workspaceId else { throw AccessError.appForbidden("no app") }
                if let appId = event.appId, appId != own {
                    throw AccessError.otherApp
                }
                appId = own
                workspaceId = workspace
            default:
                guard let appId = event.appId else {
                    throw RequestError.missingField("appId is required with a server key", field: "appId")
                }
                // The app's workspace is checked at write time, against the stored app.
                self.appId = appId
                workspaceId = principal.workspaceId ?? ""
            }
            eventId = event.eventId
            type = event.type
            attestation = event.attestation
            if let token = event.clickToken, token.isEmpty || token.utf8.count > 64 || !token.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f }) {
                throw RequestError.invalidField("clickToken", "must be a click token, at most 64 visible characters")
            }
            clickToken = event.clickToken
        }
    }
}

/// Writes events inside one transaction, remembering the apps, installs and webhook subscriptions it has looked up
/// (a batch is usually one app and one install).
final class EventWriter {
    let db: any SQLExecutor
    let now: Int64
    let services: ServerServices
    private var apps: [String: App?] = [:]
    private var installs: [String: EventInstall] = [:]
    private var subscriptions: [String: [Webhooks.Subscription]] = [:]
    /// What the stored events add to their links' daily figures, written once at the end of `write`.
    private var rollup = LinkRollup()

    /// Apps and webhook subscriptions read from the process's caches before the write, so the single writer does not
    /// look them up again. An app the cache does not know is looked up inside the write.
    struct Known: Sendable {
        var apps: [String: App] = [:]
        var subscriptions: [String: [Webhooks.Subscription]] = [:]

        static func load(_ appIds: some Sequence<String>, services: ServerServices) async throws -> Known {
            var known = Known()
            for id in appIds {
                guard let app = try await services.apps.app(id: id) else { continue }
                known.apps[id] = app
                if known.subscriptions[app.workspaceId] == nil {
                    known.subscriptions[app.workspaceId] = try await services.webhookSubscriptions.subscriptions(workspaceId: app.workspaceId)
                }
            }
            return known
        }
    }

    init(db: any SQLExecutor, now: Int64, services: ServerServices, known: Known = Known()) {
        self.db = db
        self.now = now
        self.services = services
        apps = known.apps.mapValues { Optional($0) }
        subscriptions = known.subscriptions
    }

    /// Writes one event, adding what it counts to `rollup`.
    private func writeOne(_ event: Events.Checked) throws -> Events.Outcome {
        let ready: Ready
        switch try prepare(event) {
        case .rejected(let error): return .rejected(error)
        case .ready(let found): ready = found
        }
        let app = ready.app, attribution = ready.attribution
        if event.type == "INSTALL" {
            if try AttributionQueries.eventIdKnown(db, appId: app.id, eventId: event.eventId) {
                return .duplicate(attribution)
            }
            // INSTALL events of one install wait here for each other, so the check below sees one stored at the same
            // instant by another writer (events are partitioned on PostgreSQL, where a unique index would need the time).
            try AttributionQueries.lockInstall(db, appId: app.id, installId: event.installId)
            if try AttributionQueries.hasInstallEvent(db, appId: app.id, installId: event.installId) {
                return .rejected(AttributionError.duplicateInstall)
            }
        }
        guard try AttributionQueries.claimEventId(db, appId: app.id, eventId: event.eventId, now: now) else {
            return .duplicate(attribution)
        }
        try AttributionQueries.insertEvent(db, ready, now: now)
        count(ready)
        try notify(ready)
        return .stored(attribution)
    }

    /// Writes the events, then what they add to their links' daily figures, with the same outcomes as writing them one
    /// by one in order; never throws for a bad event (that is its outcome). Without an INSTALL event (which waits for
    /// its install's others), every event's id is claimed and every stored row inserted by multi-row statements, a few
    /// statements for the batch instead of two an event.
    func write(_ batch: [Result<Events.Checked, any Error>]) throws -> [Events.Outcome] {
        let outcomes = try writeEvents(batch)
        try rollup.write(db)
        rollup = LinkRollup()
        return outcomes
    }

    private func writeEvents(_ batch: [Result<Events.Checked, any Error>]) throws -> [Events.Outcome] {
        let installs = batch.contains { entry in if case .success(let event) = entry { return event.type == "INSTALL" } else { return false } }
        guard batch.count > 1, !installs else {
            return try batch.map { entry in
                switch entry {
                case .success(let event): return try writeOne(event)
                case .failure(let error): return .rejected(error)
                }
            }
        }
        var outcomes = [Events.Outcome?](repeating: nil, count: batch.count)
        var pending: [(index: Int, ready: Ready)] = []
        for (index, entry) in batch.enumerated() {
            switch entry {
            case .failure(let error): outcomes[index] = .rejected(error)
            case .success(let event):
                switch try prepare(event) {
                case .rejected(let error): outcomes[index] = .rejected(error)
                case .ready(let ready): pending.append((index, ready))
                }
            }
        }
        let claimed = try AttributionQueries.claimEventIds(db, pending.map { ($0.ready.app.id, $0.ready.event.eventId) }, now: now)
        var taken = Set<AttributionQueries.EventIdClaims.Key>()
        var stored: [Ready] = []
        for (index, ready) in pending {
            // The first of an id in the batch is the one stored; a later one is a duplicate, as it would be one by one.
            let key = ready.key
            if claimed.claimed(key) && taken.insert(key).inserted {
                stored.append(ready)
                outcomes[index] = .stored(ready.attribution)
            } else {
                outcomes[index] = .duplicate(ready.attribution)
            }
        }
        try AttributionQueries.insertEvents(db, stored, now: now)
        for ready in stored {
            count(ready)
            try notify(ready)
        }
        // Every index was given its outcome above; one left without would be a fault of this function, answered as such.
        return outcomes.map { $0 ?? .rejected(StoreError.failed("an event of the batch was left without an outcome")) }
    }

    /// Adds a stored event to its link's daily figures.
    private func count(_ ready: Ready) {
        let event = ready.event, attribution = ready.attribution
        AttributionRollup.add(event: event.type, amount: event.amount, currency: event.currency, linkId: attribution.linkId, receivedAt: now,
                              variant: attribution.variant, qr: attribution.qr == true, install: ready.install, to: &rollup)
    }

    /// An event whose app and install are known, with the attribution it is written with. A class: a batch passes a
    /// hundred of them through several lists, and a copy of the struct retained every string of the app and install.
    final class Ready {
        let event: Events.Checked
        let app: App
        let attested: Bool
        let attribution: EventAttribution
        let install: EventInstall
        var key: AttributionQueries.EventIdClaims.Key { AttributionQueries.EventIdClaims.Key(appId: app.id, eventId: event.eventId) }

        init(event: Events.Checked, app: App, attested: Bool, attribution: EventAttribution, install: EventInstall) {
            self.event = event
            self.app = app
            self.attested = attested
            self.attribution = attribution
            self.install = install
        }
    }

    enum Preparation {
        case ready(Ready)
        case rejected(any Error)
    }

    /// The event's app and install, and the attribution it gets.
    private func prepare(_ event: Events.Checked) throws -> Preparation {
        let app: App?
        if let cached = apps[event.appId] { app = cached } else {
            app = try TenancyQueries.app(db, id: event.appId)
            apps[event.appId] = app
        }
        guard let app, event.workspaceId.isEmpty || app.workspaceId == event.workspaceId else {
            return .rejected(RequestError.invalidField("appId", "no app of this workspace has this id"))
        }
        guard let install = try install(app: app, event: event) else {
            return .rejected(AttributionError.installNotMatched(event.installId))
        }
        // An app that requires App Attest keeps unattested events out of attribution; they are stored and counted.
        let attested = app.attestation.policy != "off" && AttestationToken.attests(event.attestation, appId: app.id, installId: event.installId, secrets: services.secrets,
                                                now: Date(timeIntervalSince1970: Double(now) / 1000))
        let excluded = app.attestation.policy == "required" && !attested
        let attribution = excluded ? EventAttribution(method: "unattested", source: "unattested", linkId: nil, campaign: nil, channel: nil, feature: nil)
            : install.attribution
        if excluded { services.metrics.increment("linkrunway_unattested_total", labels: [("kind", "event")]) }
        return .ready(Ready(event: event, app: app, attested: attested, attribution: attribution, install: install))
    }

    /// Queues the `event` webhook of a stored event for the workspace's subscriptions.
    private func notify(_ ready: Ready) throws {
        let app = ready.app, event = ready.event
        let listening: [Webhooks.Subscription]
        if let cached = subscriptions[app.workspaceId] { listening = cached } else {
            listening = try Webhooks.subscriptions(db, workspaceId: app.workspaceId)
            subscriptions[app.workspaceId] = listening
        }
        if !listening.isEmpty {
            try Webhooks.enqueue(db, workspaceId: app.workspaceId, topic: "event", payload: EventNotice(
                eventId: event.eventId, appId: app.id, installId: event.installId, type: event.type, name: event.name, userId: event.userId,
                amount: event.amount, currency: event.currency, occurredAt: Timestamp.iso(event.occurredAt), attribution: ready.attribution),
                now: now, subscriptions: listening)
        }
    }

    /// The event's install; an INSTALL event for an install never matched creates an unmatched one.
    private func install(app: App, event: Events.Checked) throws -> EventInstall? {
        let key = app.id + "\u{0}" + event.installId
        if let cached = installs[key] { return cached }
        var install = try AttributionQueries.eventInstall(db, appId: app.id, installId: event.installId)
        if install == nil, event.type == "INSTALL" {
            let record = InstallRecord(appId: app.id, installId: event.installId, workspaceId: app.workspaceId, platform: "ios", osVersion: nil,
                                       language: nil, method: "unmatched", confidence: 0, source: "organic",
                                       explanation: Explanation(settings: app.attribution,
                                                                rules: ["the INSTALL event came before any match request; no matching was done"],
                                                                candidates: [], winner: nil).json,
                                       simulated: false, matchedAt: now)
            _ = try AttributionQueries.insertInstall(db, record)
            install = try AttributionQueries.eventInstall(db, appId: app.id, installId: event.installId)
        }
        if let install { installs[key] = install }
        return install
    }
}

/// What an `event` webhook says.
struct EventNotice: Encodable, Sendable {
    let eventId: String
    let appId: String
    let installId: String
    let type: String
    let name: String?
    let userId: String?
    let amount: Int64?
    let currency: String?
    let occurredAt: String
    let attribution: EventAttribution
}
