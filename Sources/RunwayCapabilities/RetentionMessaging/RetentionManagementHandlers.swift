import AppleFormats
import Foundation
import LinkRunwayAPI
import RunwayHTTP
import RunwayJSON
import RunwayKit
import RunwayStore

/// An app's retention rules, its messages at Apple (through the Retention Messaging API with the app's In-App
/// Purchase key), its default messages and realtime URL, Apple's performance test, and the report of what was shown.
struct RetentionManagementHandlers: Sendable {
    static let requestTimeoutSeconds: Double = 15

    let services: ServerServices

    // MARK: Rules

    func rules(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let app = try await TenancyQueries.managedApp(context, services, try context.principal())
        let rules = try await services.store.read { db in try RetentionMessagingQueries.ruleSet(db, appId: AppId(app.id)) }
        return try .json(rules ?? RetentionRuleSet(rules: []))
    }

    func setRules(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let app = try await TenancyQueries.managedApp(context, services, try context.principal())
        let rules = try request.decode(RetentionRuleSet.self)
        try Self.validate(rules)
        let now = services.clock.nowMilliseconds()
        try await services.store.write { db in try RetentionMessagingQueries.setRuleSet(db, appId: AppId(app.id), rules: rules, now: now) }
        services.retention.forget(appId: AppId(app.id))
        var stored = rules
        stored.updatedAt = Timestamp.iso(now)
        return try .json(stored)
    }

    static func validate(_ set: RetentionRuleSet) throws {
        guard set.rules.count <= 100 else { throw RequestError.invalidField("rules", "at most 100 rules") }
        for (index, rule) in set.rules.enumerated() {
            try validate(rule.answer, field: "rules[\(index)].answer")
            if let name = rule.name, name.isEmpty || name.count > 100 || name == "fallback" || name == "none" {
                throw RequestError.invalidField("rules[\(index)].name", "1 to 100 characters, not fallback or none")
            }
            if let sources = rule.when?.sources, let unknown = sources.first(where: { !RetentionSource.all.contains($0) }) {
                throw RequestError.invalidField("rules[\(index)].when.sources", "\(unknown) is not one of \(RetentionSource.all.joined(separator: ", "))")
            }
        }
        if let fallback = set.fallback { try validate(fallback, field: "fallback") }
    }

    static func validate(_ answer: RetentionAnswer, field: String) throws {
        guard UUID(uuidString: answer.messageId) != nil else { throw RequestError.invalidField(field + ".messageId", "must be a UUID") }
        if let plan = answer.billingPlanType {
            guard answer.alternateProductId != nil else {
                throw RequestError.invalidField(field + ".billingPlanType", "goes with alternateProductId")
            }
            guard ["MONTHLY", "BILLED_UPFRONT"].contains(plan) else {
                throw RequestError.invalidField(field + ".billingPlanType", "must be MONTHLY or BILLED_UPFRONT")
            }
        }
        if let product = answer.alternateProductId, product.isEmpty || product.utf8.count > 200 {
            throw RequestError.invalidField(field + ".alternateProductId", "1 to 200 characters")
        }
    }

    // MARK: Messages

    func messages(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let app = try await TenancyQueries.managedApp(context, services, try context.principal())
        let environment = try Self.environment(request.queryValue("environment"))
        let listed = try await client(app, environment: environment).messages(now: services.clock.now())
        let now = services.clock.nowMilliseconds()
        let items = try await services.store.write { db in
            try RetentionMessagingQueries.recordList(db, appId: AppId(app.id), environment: environment, listed: listed, now: now)
            return try RetentionMessagingQueries.messages(db, appId: AppId(app.id), environment: environment)
        }
        services.retention.forget(appId: AppId(app.id))
        return try .json(RetentionMessageList(environment: environment.surfaceName, items: items))
    }

    func createMessage(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let app = try await TenancyQueries.managedApp(context, services, try context.principal())
        let body = try request.decode(CreateRetentionMessageRequest.self)
        let environment = try Self.environment(body.environment)
        let messageId = (body.messageId ?? UUID().uuidString).lowercased()
        guard UUID(uuidString: messageId) != nil else { throw RequestError.invalidField("messageId", "must be a UUID") }
        guard !body.header.isEmpty, body.header.count <= 66 else { throw RequestError.invalidField("header", "1 to 66 characters") }
        guard !body.body.isEmpty, body.body.count <= 144 else { throw RequestError.invalidField("body", "1 to 144 characters") }
        var image: (id: String, altText: String)?
        switch (body.imageId, body.altText) {
        case (nil, nil): break
        case (let id?, let text?):
            guard UUID(uuidString: id) != nil else { throw RequestError.invalidField("imageId", "must be a UUID") }
            guard !text.isEmpty, text.count <= 150 else { throw RequestError.invalidField("altText", "1 to 150 characters") }
            image = (id.lowercased(), text)
        case (nil, _?): throw RequestError.invalidField("altText", "goes with imageId")
        case (_?, nil): throw RequestError.invalidField("altText", "an image needs its alternative text")
        }
        try await client(app, environment: environment).uploadMessage(id: messageId, header: body.header, body: body.body, image: image,
                                                                      now: services.clock.now())
        let now = services.clock.nowMilliseconds()
        let item = try await services.store.write { db in
            try RetentionMessagingQueries.insertMessage(db, appId: AppId(app.id), environment: environment, request: body, messageId: messageId, now: now)
            return try RetentionMessagingQueries.messages(db, appId: AppId(app.id), environment: environment).first { $0.messageId == messageId }
        }
        guard let item else { throw StoreError.failed("the message just stored is not there") }
        return try .json(item, status: 201)
    }

    func deleteMessage(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let app = try await TenancyQueries.managedApp(context, services, try context.principal())
        let environment = try Self.environment(request.queryValue("environment"))
        let messageId = try context.parameter("messageId").lowercased()
        guard UUID(uuidString: messageId) != nil else { throw RequestError.invalidField("messageId", "must be a UUID") }
        try await client(app, environment: environment).deleteMessage(id: messageId, now: services.clock.now())
        try await services.store.write { db in
            try RetentionMessagingQueries.deleteMessage(db, appId: AppId(app.id), environment: environment, messageId: messageId)
        }
        services.retention.forget(appId: AppId(app.id))
        return HTTPResponse(status: 204)
    }

    // MARK: Defaults, realtime URL, performance test

    func setDefaultMessage(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let app = try await TenancyQueries.managedApp(context, services, try context.principal())
        let body = try request.decode(RetentionDefaultMessageRequest.self)
        let environment = try Self.environment(body.environment)
        guard !body.productId.isEmpty, body.productId.utf8.count <= 200 else { throw RequestError.invalidField("productId", "1 to 200 characters") }
        guard body.locale.range(of: "^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$", options: .regularExpression) != nil, body.locale.count <= 35 else {
            throw RequestError.invalidField("locale", "must be Apple's locale code, as en-US")
        }
        if let id = body.messageId, UUID(uuidString: id) == nil { throw RequestError.invalidField("messageId", "must be a UUID") }
        try await client(app, environment: environment).setDefaultMessage(productId: body.productId, locale: body.locale,
                                                                          messageId: body.messageId?.lowercased(), now: services.clock.now())
        return HTTPResponse(status: 204)
    }

    func setRealtimeURL(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let app = try await TenancyQueries.managedApp(context, services, try context.principal())
        let body = try request.decode(RetentionRealtimeURLRequest.self)
        let environment = try Self.environment(body.environment)
        // Apple takes https only; a stand-in of Apple (LINKRUNWAY_APP_STORE_API_URL) may call this machine over http.
        let local = services.settings[AppStoreAPISettings.self].url != nil && (body.url.hasPrefix("http://127.0.0.1:") || body.url.hasPrefix("http://localhost:"))
        guard body.url.hasPrefix("https://") || local, body.url.utf8.count <= 256, let url = URL(string: body.url), url.host != nil else {
            throw RequestError.invalidField("url", "must be an https URL of at most 256 characters")
        }
        let surfaces = try await services.store.read { db in
            try AffiliateQueries.surfaces(db, appId: AppId(app.id))
        }
        let paths = surfaces.filter { $0.environment == environment.surfaceName }.map { RetentionMessagingCapability.path(surfaceId: $0.id) }
        guard paths.contains(where: { url.path == $0 }) else {
            throw RequestError.invalidField("url", "must end in the retentionPath of one of the app's \(environment.surfaceName) App Store surfaces")
        }
        let client = try await client(app, environment: environment)
        try await client.setRealtimeURL(body.url, now: services.clock.now())
        return try .json(RetentionRealtimeURL(environment: environment.surfaceName, url: body.url))
    }

    func realtimeURL(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let app = try await TenancyQueries.managedApp(context, services, try context.principal())
        let environment = try Self.environment(request.queryValue("environment"))
        let url = try await client(app, environment: environment).realtimeURL(now: services.clock.now())
        return try .json(RetentionRealtimeURL(environment: environment.surfaceName, url: url))
    }

    func startPerformanceTest(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let app = try await TenancyQueries.managedApp(context, services, try context.principal())
        let body = try request.decode(RetentionPerformanceTestRequest.self)
        guard !body.originalTransactionId.isEmpty, body.originalTransactionId.utf8.count <= 32, body.originalTransactionId.allSatisfy(\.isASCII),
              body.originalTransactionId.allSatisfy(\.isNumber) else {
            throw RequestError.invalidField("originalTransactionId", "must be an original transaction id (digits)")
        }
        // Apple runs the test in the sandbox only.
        let answer = try await client(app, environment: .sandbox).startPerformanceTest(originalTransactionId: body.originalTransactionId,
                                                                                        now: services.clock.now())
        guard let requestId = answer["requestId"]?.stringValue, !requestId.isEmpty, requestId.utf8.count <= 128 else {
            throw RetentionMessagingError.appleAnswerUnreadable("the test's answer has no requestId")
        }
        var test = RetentionPerformanceTest(requestId: requestId)
        Self.read(config: answer["config"], into: &test)
        return try .json(test, status: 201)
    }

    func performanceTestResult(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let app = try await TenancyQueries.managedApp(context, services, try context.principal())
        let requestId = try context.parameter("requestId")
        guard !requestId.isEmpty, requestId.utf8.count <= 128 else { throw RequestError.invalidField("requestId", "1 to 128 characters") }
        let answer = try await client(app, environment: .sandbox).performanceTestResult(requestId: requestId, now: services.clock.now())
        var test = RetentionPerformanceTest(requestId: requestId, result: answer["result"]?.stringValue.map { String($0.prefix(32)) })
        Self.read(config: answer["config"], into: &test)
        test.successRate = Self.number(answer["successRate"])
        test.pending = Self.number(answer["numPending"])
        let times = answer["responseTimes"]
        (test.p50Milliseconds, test.p90Milliseconds, test.p95Milliseconds, test.p99Milliseconds) =
            (Self.number(times?["p50"]), Self.number(times?["p90"]), Self.number(times?["p95"]), Self.number(times?["p99"]))
        if let failures = answer["failures"]?.objectValue {
            var counted: [String: Int64] = [:]
            for (reason, count) in failures.prefix(64) { counted[String(reason.prefix(64))] = Self.number(count) ?? 0 }
            test.failures = counted
        }
        return try .json(test)
    }

    /// A JSON number as a whole number within the API's bounds, or nil.
    static func number(_ value: JSONValue?) -> Int64? {
        guard case .number(let text)? = value, let double = Double(text), double.isFinite else { return nil }
        return Int64(min(max(double.rounded(.towardZero), 0), 1e15))
    }

    static func read(config: JSONValue?, into test: inout RetentionPerformanceTest) {
        test.maxConcurrentRequests = number(config?["maxConcurrentRequests"])
        test.totalRequests = number(config?["totalRequests"])
        test.totalDurationMilliseconds = number(config?["totalDuration"])
        test.responseTimeThresholdMilliseconds = number(config?["responseTimeThreshold"])
        test.successRateThreshold = number(config?["successRateThreshold"])
    }

    // MARK: Report

    func report(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let app = try await TenancyQueries.managedApp(context, services, try context.principal())
        let now = services.clock.nowMilliseconds()
        let to = try request.queryValue("to").map { text in
            guard let value = ISOTime.milliseconds(text) else { throw RequestError.invalidQuery("to must be an ISO 8601 time", field: "to") }
            return value
        } ?? now
        let from = try request.queryValue("from").map { text in
            guard let value = ISOTime.milliseconds(text) else { throw RequestError.invalidQuery("from must be an ISO 8601 time", field: "from") }
            return value
        } ?? max(to - 30 * 86_400_000, 0)
        guard from <= to else { throw RequestError.invalidQuery("from must not be after to", field: "from") }
        let rows = try await services.store.read { db in try RetentionMessagingQueries.report(db, appId: AppId(app.id), from: from, to: to) }
        return try .json(RetentionMessageReport(from: Timestamp.iso(from), to: Timestamp.iso(to), rows: rows))
    }

    // MARK: Apple

    /// The environment a request names (production when it names none).
    static func environment(_ value: String?) throws -> AppStoreVerifier.Environment {
        guard let environment = AppStoreVerifier.Environment(surfaceName: value ?? AppStoreVerifier.Environment.production.surfaceName) else {
            throw RequestError.invalidField("environment", "must be production or sandbox")
        }
        return environment
    }

    /// A client of Apple's Retention Messaging API for `environment`, signing with the app's In-App Purchase key.
    private func client(_ app: App, environment: AppStoreVerifier.Environment) async throws -> RetentionMessagingClient {
        guard let keyRow = try await services.store.read({ db in try AppStoreReplayQueries.key(db, appId: AppId(app.id)) }) else {
            throw AppStoreReplayError.keyMissing
        }
        guard let pem = services.secretBox.open(keyRow.privateKey, purpose: AppStoreReplayHandlers.keyPurpose),
              let privateKey = AppStoreServerAPIToken.privateKey(pem: pem) else {
            throw StoreError.failed("the app's In-App Purchase key does not open with the secret key file")
        }
        return RetentionMessagingClient(
            baseURL: RetentionMessagingClient.baseURL(environment: environment, configured: services.settings[AppStoreAPISettings.self].url),
            token: AppStoreServerAPIToken(issuerId: keyRow.issuerId, keyId: keyRow.keyId, bundleId: app.bundleId,
                                          key: privateKey),
            timeoutSeconds: Self.requestTimeoutSeconds)
    }
}
