import AppleFormats
import Foundation
import LinkRunwayAPI
import RunwayHTTP
import RunwayJSON
import RunwayKit
import RunwayStore

/// `POST /v1/installs/match`, the explanation of an answer, ad impressions for view-through matching, events, the
/// funnel report, and simulated clicks and installs (the real click and match code, with the address and User-Agent
/// given in the request; installs made this way are marked simulated and send no webhooks).
struct AttributionHandlers: Sendable {
    static let iPhone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148"

    let services: ServerServices

    /// Counts an event against its install's daily allowance (`RateLimitSettings.eventsPerInstallPerDay`) when a
    /// publishable key sent it; a backend's server key is not held to it.
    func withinInstallAllowance(_ event: Events.Checked, principal: Principal, _ context: RequestContext) throws -> Events.Checked {
        guard principal.kind == .publishable else { return event }
        try context[RateLimitCharge.Key.self]?.takeEvent(of: event.appId + "|" + event.installId)
        return event
    }

    func matchInstall(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let body = try request.decode(MatchInstallRequest.self)
        guard body.consent else {
            throw AttributionError.consentRequired
        }
        guard let appId = principal.appId, let app = try await services.apps.app(id: appId) else {
            throw AccessError.keyKindForbidden("matching needs an app's publishable key")
        }
        var input = try await self.input(app: app, installId: body.installId, platform: body.platform, osVersion: body.osVersion,
                                         language: body.language, clickToken: body.clickToken, address: request.remoteAddress,
                                         simulated: false, returning: body.returning ?? false)
        input.returning = body.returning ?? false
        input.appTransactionId = try Self.appTransactionId(body.appTransactionId)
        if let all = body.signedAppTransactions, !(1...8).contains(all.count) || all.contains(where: { $0.isEmpty || $0.utf8.count > 16_384 }) {
            throw RequestError.invalidField("signedAppTransactions", "1 to 8 signed app transactions of at most 16,384 characters each")
        }
        var storeTypes = Set<String>()
        if let signed = body.signedAppTransaction, !input.returning {
            switch AppTransactionOwnership.verify(signed, app: app, verifier: services.appStoreVerifier, now: services.clock.now()) {
            case .verified(let proof):
                input.appTransactionProof = proof
                input.appTransactionId = proof.appTransactionId
                if let type = proof.storeType, Self.isStoreType(type) { storeTypes.insert(type) }
            case .refused(let status):
                // The install is still matched: a misconfigured app must not stop attribution. The id proves nothing.
                input.appTransactionId = nil
                services.metrics.increment("linkrunway_app_transactions_total", labels: [("outcome", "refused")])
                services.logger.warn("signed app transaction refused", ["appId": .string(app.id), "status": .string(status)])
            }
        }
        // iOS 27's AppTransaction.all: only the stores of transactions Apple signed for this app count.
        if let all = body.signedAppTransactions, !input.returning {
            for signed in all {
                guard case .verified(let proof) = AppTransactionOwnership.verify(signed, app: app, verifier: services.appStoreVerifier, now: services.clock.now()),
                      let type = proof.storeType, Self.isStoreType(type) else { continue }
                storeTypes.insert(type)
            }
        }
        input.storeTypes = storeTypes.isEmpty ? nil : storeTypes.sorted()
        input.appAttestSupported = body.appAttestSupported
        if body.appAttestSupported == false {
            services.metrics.increment("linkrunway_app_attest_unsupported_total", labels: [])
        }
        input.secretHash = try InstallSecrets.hash(body.installSecret)
        input.attested = app.attestation.policy != "off" && AttestationToken.attests(body.attestation, appId: app.id, installId: input.installId, secrets: services.secrets,
                                                  now: services.clock.now())
        if app.attestation.policy == "required", !input.attested {
            services.metrics.increment("linkrunway_unattested_total", labels: [("kind", "match")])
            throw AttestError.required
        }
        return try .json(try await match(input))
    }

    /// Apple's store types are upper-case words (`CONSUMER`, `EDUCATION`, `ENTERPRISE`); anything else is not kept.
    static func isStoreType(_ text: String) -> Bool {
        (1...32).contains(text.utf8.count) && text.utf8.allSatisfy { (0x41...0x5A).contains($0) || $0 == UInt8(ascii: "_") }
    }

    func explain(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let install = try await load(request, context)
        let link = try await install.linkId.asyncMap { id in try await services.store.read { try LinkRecord.find($0, id: id) } } ?? nil
        let explanation = Explanation.decode(install.explanation)
        return try .json(AttributionExplanation(match: install.wire(link: link, localPort: services.listening.port), settings: explanation?.settings ?? AttributionSettings(),
                                                rules: explanation?.rules ?? [], candidates: explanation?.candidates ?? [],
                                                winner: explanation?.winner, simulated: install.simulated))
    }

    func recordImpression(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let body = try request.decode(ImpressionRequest.self)
        guard let app = try await services.apps.app(id: body.appId) else { throw RequestError.invalidField("appId", "no app has this id") }
        try principal.requireWorkspace(app.workspaceId)
        guard IPAddress.isValid(body.ip) else { throw RequestError.invalidField("ip", "must be a numeric IPv4 or IPv6 address") }
        let now = services.clock.nowMilliseconds()
        let at = try Validate.timestamp(body.timestamp, field: "timestamp") ?? now
        guard at <= now + 5 * Matcher.minute else { throw RequestError.invalidField("timestamp", "must not be in the future") }
        let network = try LinkValidate.tag(body.network, field: "network")
        let campaign = try LinkValidate.tag(body.campaign, field: "campaign")
        let hash = try await services.addresses.hash(body.ip, at: at)
        let id = Identifier.make("imp")
        return try await IdempotencyClaim.write(services.store, context) { db in
            try AttributionQueries.insertImpression(db, id: id, app: app, addressHash: hash, network: network, campaign: campaign, at: at)
            return try HTTPResponse.json(Impression(id: id, appId: app.id, network: network, campaign: campaign, createdAt: Timestamp.iso(at)), status: 201)
        }
    }

    func recordEvent(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let event = try withinInstallAllowance(try Events.Checked(try request.decode(EventRequest.self), principal: principal, services: services),
                                                principal: principal, context)
        let now = services.clock.nowMilliseconds()
        let known = try await EventWriter.Known.load([event.appId], services: services)
        let result = try await services.store.write { db in try EventWriter(db: db, now: now, services: services, known: known).write([.success(event)])[0] }
        switch result {
        case .stored(let attribution):
            return try .json(EventResult(eventId: event.eventId, status: "stored", attribution: attribution), status: 201)
        case .duplicate(let attribution):
            return try .json(EventResult(eventId: event.eventId, status: "duplicate", attribution: attribution))
        case .rejected(let error):
            throw error
        }
    }

    func recordEvents(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        guard !request.body.isEmpty else { throw RequestError.invalidJSON("the request body is empty; send {\"events\":[…]}") }
        let document = try JSONParser().parse(request.body)
        guard let members = document.objectValue, members.count == 1, let items = document["events"]?.arrayValue else {
            throw AttributionError.notAnEventBatch
        }
        guard (1...Events.batchLimit).contains(items.count) else {
            throw RequestError.invalidField("events", "must hold 1 to \(Events.batchLimit) events")
        }
        // The request took one token of its address and key; each further event takes one more.
        try context[RateLimitCharge.Key.self]?.take(items.count - 1)
        // Each event is checked on its own, so one bad event does not sink the others.
        let checked: [Result<Events.Checked, any Error>] = items.map { item in
            do {
                return .success(try withinInstallAllowance(
                    try Events.Checked(try StrictJSONDecoder().decode(EventRequest.self, from: item), principal: principal, services: services),
                    principal: principal, context))
            } catch {
                return .failure(error)
            }
        }
        let now = services.clock.nowMilliseconds()
        let appIds = Set(checked.compactMap { entry -> String? in if case .success(let event) = entry { return event.appId } else { return nil } })
        let known = try await EventWriter.Known.load(appIds, services: services)
        let outcomes: [Events.Outcome] = try await services.store.write { db in
            try EventWriter(db: db, now: now, services: services, known: known).write(checked)
        }
        var results: [EventResult] = []
        for (i, outcome) in outcomes.enumerated() {
            let eventId = items[i]["eventId"]?.stringValue
            switch outcome {
            case .stored(let attribution): results.append(EventResult(eventId: eventId, status: "stored", attribution: attribution))
            case .duplicate(let attribution): results.append(EventResult(eventId: eventId, status: "duplicate", attribution: attribution))
            case .rejected(let error):
                let detail = ErrorMapping.detail(for: error)
                results.append(EventResult(eventId: eventId, status: "rejected",
                                           error: ErrorBody.Detail(code: detail.errorCode, message: detail.message, field: detail.field.map { "events[\(i)].\($0)" })))
            }
        }
        return try .json(EventBatchResponse(results: results, stored: results.filter { $0.status == "stored" }.count,
                                            duplicates: results.filter { $0.status == "duplicate" }.count,
                                            rejected: results.filter { $0.status == "rejected" }.count))
    }

    func funnel(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let query = try ReportQuery(request, principal: try context.principal(), now: services.clock.nowMilliseconds(),
                                    groupings: FunnelReports.groupings)
        let includeSimulated = try request.queryValue("includeSimulated").map { value in
            guard let flag = Bool(value) else {
                throw RequestError.invalidQuery("includeSimulated must be true or false", field: "includeSimulated")
            }
            return flag
        } ?? false
        let stores = request.queryValue("stores") ?? "all"
        guard FunnelReports.stores.contains(stores) else {
            throw RequestError.invalidQuery("stores must be all or consumer", field: "stores")
        }
        let report = try await services.store.read { db in
            try FunnelReports.funnel(db, workspaceId: query.workspaceId, appId: query.appId, from: query.from, to: query.to, groupBy: query.groupBy,
                                     includeSimulated: includeSimulated, consumerOnly: stores == "consumer")
        }
        return try query.respond(request, report, csv: { FunnelReports.csv(report) }, filename: "funnel.csv")
    }

    func simulateClick(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let body = try request.decode(SimulateClickRequest.self)
        guard let components = URLComponents(string: body.url), let host = components.host?.lowercased() else {
            throw RequestError.invalidField("url", "must be a link's URL")
        }
        let path = components.path.split(separator: "/").joined(separator: "/")
        guard let domain = try await services.links.domain(hostname: LinkDirectory.linkHostname(host)), !path.isEmpty,
              let link = try await services.links.link(domain: domain.hostname, path: path), link.workspaceId == domain.workspaceId else {
            throw LinksError.linkNotFound(url: body.url)
        }
        try principal.requireWorkspace(link.workspaceId)
        let now = services.clock.nowMilliseconds()
        guard link.enabled, link.hasStarted(at: now), !link.isExpired(at: now) else {
            throw LinksError.linkExpired("the link is disabled, not started yet or expired")
        }
        let address = body.ip ?? request.remoteAddress ?? "127.0.0.1"
        guard IPAddress.isValid(address) else { throw RequestError.invalidField("ip", "must be a numeric IPv4 or IPv6 address") }
        let userAgent = body.userAgent ?? Self.iPhone
        let client = ClientClass(userAgent: userAgent, crawlers: services.automatedClients.needles)
        if case .crawler = client { throw RequestError.invalidField("userAgent", "is a crawler's; crawlers never count as clicks") }
        let app = try await link.appId.asyncMap { try await services.apps.app(id: $0) } ?? nil
        let appStore = (link.iosAppStoreId ?? app?.appStoreId).map { "https://apps.apple.com/app/id\($0)" }
        let query = components.queryItems?.map { (name: $0.name, value: $0.value ?? "") } ?? []
        // Routed as a redirect is: the rules, a variant, the click limit.
        let routing = link.routing.value ?? LinkRouting(link)
        var facts = RequestFacts(client: client, userAgent: userAgent, acceptLanguage: nil, address: address, countries: services.countries, now: now)
        var random = SystemRandomNumberGenerator()
        let choice = routing.choose(&facts, random: &random)
        let (target, interstitialStore, _) = routing.target(choice, client: client, appStore: appStore, interstitial: link.interstitial,
                                                             query: link.passQuery ? query.filter { !LinkRouting.markers.contains($0.name) } : [])
        guard try await services.clickAllowances.takeReserving(link) else {
            throw LinksError.linkExpired("the link has reached its click limit")
        }
        let token = try await Clicks.record(Clicks.Visit(kind: "click", platform: client.platform, osVersion: client.osVersion,
                                                         address: address, referrerHost: nil, installId: nil, variant: choice.variant?.name,
                                                         country: facts.country, qr: query.contains { $0.name == LinkRouting.qrMarker && $0.value == "1" },
                                                         inAppBrowser: client.inAppBrowser?.rawValue),
                                            of: link, services: services)
        return try .json(SimulatedClick(clickToken: token, linkId: link.id, platform: client.platform,
                                        location: interstitialStore ?? target, variant: choice.variant?.name), status: 201)
    }

    func simulateInstall(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let body = try request.decode(SimulateInstallRequest.self)
        guard let app = try await services.apps.app(id: body.appId) else { throw RequestError.invalidField("appId", "no app has this id") }
        try principal.requireWorkspace(app.workspaceId)
        let address = body.ip ?? request.remoteAddress ?? "127.0.0.1"
        guard IPAddress.isValid(address) else { throw RequestError.invalidField("ip", "must be a numeric IPv4 or IPv6 address") }
        let input = try await self.input(app: app, installId: body.installId ?? UUID().uuidString.lowercased(),
                                         platform: body.platform ?? "ios", osVersion: body.osVersion, language: nil,
                                         clickToken: body.clickToken, address: address, simulated: true)
        return try .json(try await match(input))
    }

    /// Validates the request and hashes the address under the keys of every day the app's windows reach into.
    private func input(app: App, installId: String, platform: String, osVersion: String?, language: String?, clickToken: String?,
                       address: String?, simulated: Bool, returning: Bool = false) async throws -> Matcher.Input {
        guard let installId = try Validate.installID(installId, field: "installId") else {
            throw RequestError.missingField("installId is required", field: "installId")
        }
        guard ["ios", "tvos"].contains(platform) else { throw RequestError.invalidField("platform", "must be ios or tvos") }
        if let osVersion, osVersion.utf8.count > 16 || !osVersion.allSatisfy({ $0.isNumber || $0 == "." }) {
            throw RequestError.invalidField("osVersion", "must look like 17.4")
        }
        if let language, language.utf8.count > 35 || !language.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) {
            throw RequestError.invalidField("language", "must be a language tag such as en-GB")
        }
        if let clickToken, clickToken.utf8.count > 64 {
            throw RequestError.invalidField("clickToken", "is not a click token")
        }
        let now = services.clock.nowMilliseconds()
        var hashes: [String] = []
        // A returning device is not matched, so its address is not even hashed.
        if let address, !returning, app.attribution.probabilisticMinutes > 0 || app.attribution.viewThroughHours > 0 {
            let reach = Int64(max(app.attribution.probabilisticMinutes, app.attribution.viewThroughHours * 60)) * Matcher.minute
            hashes.append(try await services.addresses.hash(address, at: now))
            if AddressHasher.day(now - reach) != AddressHasher.day(now) {
                hashes.append(try await services.addresses.hash(address, at: now - reach))
            }
        }
        return Matcher.Input(app: app, installId: installId, platform: platform, osVersion: osVersion, language: language,
                             clickToken: clickToken, addressHashes: hashes, simulated: simulated, now: now)
    }

    /// Decides (or finds) the answer and returns it with the link's current path and metadata. One write job reads the
    /// candidates and stores the answer: on the writer's connection, whose page cache outlives each commit, the reads
    /// cost less than the hand-off to a reader and back, and they see every claim committed before them.
    private func match(_ input: Matcher.Input) async throws -> InstallMatch {
        let port = services.listening.port
        let links = services.links
        let outcome = try await services.store.write { db -> MatchOutcome in
            let plan = try Matcher.plan(input, db: db)
            if let existing = plan.existing {
                var claim: AppTransactionClaim?
                // A simulated install is made with a server key, which may see any install of its workspace.
                if !input.simulated {
                    try InstallSecrets.admitRematch(db, appId: input.app.id, installId: input.installId, presented: input.secretHash,
                                                    matchedAt: existing.matchedAt, now: input.now)
                    claim = try claimAppTransaction(input, db)
                }
                let link = try existing.linkId.map { try links.link(id: $0, in: db) } ?? nil
                return MatchOutcome(install: existing, link: link, created: false, claim: claim)
            }
            let (install, created, link) = try Matcher.commit(input, plan: plan, db: db, links: links)
            if let hash = input.secretHash { try AttributionQueries.keepSecret(db, appId: input.app.id, installId: input.installId, hash: hash, now: input.now) }
            let claim = try claimAppTransaction(input, db)
            if created, !input.simulated, !input.returning {
                try Webhooks.enqueue(db, workspaceId: install.workspaceId, topic: "install", payload: install.wire(link: link, localPort: port), now: input.now)
            }
            return MatchOutcome(install: install, link: link, created: created, claim: claim)
        }
        countClaim(outcome.claim, app: input.app)
        if outcome.created, !input.returning { services.metrics.increment("linkrunway_installs_matched_total", labels: [("method", outcome.install.method)]) }
        return outcome.install.wire(link: outcome.link, localPort: port)
    }

    private struct MatchOutcome: Sendable {
        let install: InstallRecord
        let link: LinkRecord?
        let created: Bool
        let claim: AppTransactionClaim?
    }

    /// The install's claim on the app transaction id it proved, if it proved one. A production app transaction also
    /// proves the app's App Store id (the weakest proof: any customer's device holds one).
    private func claimAppTransaction(_ input: Matcher.Input, _ db: any SQLExecutor) throws -> AppTransactionClaim? {
        guard let proof = input.appTransactionProof else { return nil }
        let claim = try AppTransactionOwnership.claim(db, appId: AppId(input.app.id), installId: InstallId(input.installId), proof: proof, now: input.now)
        let provesStoreId = proof.environment == AppStoreVerifier.Environment.production.rawValue && proof.appAppleId.map(String.init) == input.app.appStoreId
        let proved = try provesStoreId && AppStoreIdentity.prove(db, app: input.app, proof: .appTransaction, now: input.now).changed
        return AppTransactionClaim(claim: claim, provedAppStoreId: proved)
    }

    struct AppTransactionClaim: Sendable {
        let claim: AppTransactionOwnership.Claim
        let provedAppStoreId: Bool
    }

    private func countClaim(_ claim: AppTransactionClaim?, app: App) {
        guard let claim else { return }
        services.metrics.increment("linkrunway_app_transactions_total", labels: [("outcome", claim.claim.rawValue)])
        if claim.provedAppStoreId, let appStoreId = app.appStoreId { services.apps.forget(appStoreId: appStoreId) }
    }

    /// StoreKit 2's app transaction id as a client reports it.
    private static func appTransactionId(_ text: String?) throws -> String? {
        guard let text else { return nil }
        guard AppTransactionOwnership.isWellFormed(text) else {
            throw RequestError.invalidField("appTransactionId", "must be 1 to 64 letters, digits or dashes")
        }
        return text
    }

    /// The install named by the path, in the caller's workspace (`appId` decides between apps).
    private func load(_ request: HTTPRequest, _ context: RequestContext) async throws -> InstallRecord {
        let principal = try context.principal()
        let installId = try context.parameter("installId").lowercased()
        let appId = request.queryValue("appId") ?? principal.appId
        let workspaceId = principal.kind == .admin ? nil : principal.workspaceId ?? ""
        let rows = try await services.store.read { db in
            try AttributionQueries.installs(db, installId: installId, appId: appId, workspaceId: workspaceId)
        }
        guard let install = rows.first, principal.kind == .admin || install.workspaceId == principal.workspaceId else {
            throw AttributionError.unknownInstall(installId)
        }
        if rows.count > 1 {
            throw AttributionError.ambiguousInstall
        }
        return install
    }
}

/// Numeric addresses only
/// Numeric addresses only: what the transport reports, or what an ad server sends.
enum IPAddress {
    static func isValid(_ text: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1
    }
}
