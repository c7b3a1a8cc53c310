import AppleFormats
import Foundation
import LinkRunwayAPI
@testable import RunwayCapabilities
@testable import RunwayConsole
import RunwayCrypto
import RunwayHTTP
import RunwayJSON
@testable import RunwayKit
@testable import RunwayServer
import RunwayTestKit
import Testing

/// Every route of the router, the console's forms and the App Store surfaces, sent requests made from valid ones and
/// pushed past every boundary (`RequestFuzzer`), in-process, on each backend: no answer is a 500 or a status the
/// OpenAPI document does not list for the operation, and the server stays healthy. A trap ends the test process.
/// `make test` runs a few rounds a route; `make fuzz` runs `LINKRUNWAY_FUZZ_ROUNDS` of them (and
/// `LINKRUNWAY_FUZZ_SEED` repeats a run).
@Suite("Route fuzzing")
struct RouteFuzzTests {
    static let environment = ProcessInfo.processInfo.environment
    static let rounds = environment["LINKRUNWAY_FUZZ_ROUNDS"].flatMap { Int($0) } ?? 6
    static let seed = environment["LINKRUNWAY_FUZZ_SEED"].flatMap { UInt64($0) } ?? UInt64(Date().timeIntervalSince1970)

    /// `text` with control characters written as escapes, so a report can be read.
    static func printable(_ text: some StringProtocol) -> String {
        String(text).unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "\\u{\(String($0.value, radix: 16))}" : String($0) }.joined()
    }

    /// An answer the fuzzer cannot accept, or nil.
    static func problem(_ response: HTTPResponse, documented: JSONValue?) -> String? {
        if response.status >= 500 && response.status != 503 { return "answered \(response.status): \(response.bodyText.prefix(300))" }
        if response.status == 503 && response.errorCode != ErrorCode.storeUnavailable.rawValue && response.errorCode != ErrorCode.appStoreUnconfigured.rawValue
            && response.errorCode != ErrorCode.attestationUnconfigured.rawValue {
            return "answered 503 \(response.errorCode ?? "without a code")"
        }
        guard let documented else { return nil }
        guard documented["responses"]?[String(response.status)] != nil else {
            return "answered \(response.status) (\(response.errorCode ?? "no code")), which the document does not list: \(response.bodyText.prefix(200))"
        }
        if response.headers["Content-Type"]?.hasPrefix("application/json") == true, response.json == nil {
            return "answered \(response.status) with a JSON type and a body that is not JSON"
        }
        return nil
    }

    @Test("every API route, with mutated bodies, queries, paths and headers: no 500, every answer documented", arguments: StoreBackend.all)
    func everyRoute(_ backend: StoreBackend) async throws {
        let world = try await AuthMatrixTests.makeWorld(backend)
        let server = world.server
        let publishable = try await server.createKey(.publishable, app: world.appA.id).secret
        let document = try #require(await server.client().get("/openapi.json").json)
        let components = document["components"]?["schemas"]
        let probes = AuthMatrixTests.probes(world)
        var fuzzer = RequestFuzzer(seed: Self.seed)
        var problems: [String] = []
        var sent = 0
        for route in server.application.router.routes {
            let probe = try #require(probes[route.label])
            let operation = document["paths"]?[OpenAPIBuilder.openAPIPath(route.pattern)]?[route.method.rawValue.lowercased()]
            let schema = operation?["requestBody"]?["content"]?["application/json"]?["schema"]
            let documentedQuery = (operation?["parameters"]?.arrayValue ?? []).filter { $0["in"] == "query" }.compactMap { $0["name"]?.stringValue }
            var keys: [String] = []
            if case .keys(let kinds) = route.operation.access {
                if kinds.contains("admin") { keys.append(server.adminKey) }
                if kinds.contains("server") { keys.append(world.serverKeyA.secret) }
                if kinds.contains("publishable") { keys.append(publishable) }
            }
            let (validPath, validQuery) = Self.split(probe.path)
            for round in 0..<Self.rounds {
                var path = validPath, query = validQuery
                var body = Array(probe.body.utf8)
                switch round % 4 {
                case 0, 1: body = fuzzer.body(from: body, schema: schema, components: components)
                case 2: query = fuzzer.query(validQuery, documented: documentedQuery)
                default:
                    path = fuzzer.path(validPath, pattern: route.pattern)
                    if fuzzer.chance(50) { body = fuzzer.body(from: body, schema: schema, components: components) }
                }
                var headers = HTTPHeaders([("Host", "localhost")] + fuzzer.headers())
                if !keys.isEmpty { headers.set("Authorization", "Bearer \(fuzzer.pick(keys))") }
                // Each request from an address of its own, as a crowd would, so the per-address limit rarely answers.
                let address = "198.18.\(sent / 250 % 250).\(sent % 250 + 1)"
                let request = HTTPRequest(method: route.method.rawValue, path: path, query: query, headers: headers, body: body, remoteAddress: address)
                // Routes with an immediate handler (redirects, /healthz) are answered on the transport's thread when they can be.
                let response: HTTPResponse
                if let immediate = server.application.respondImmediately(to: request) {
                    response = immediate
                } else {
                    response = await server.application.respond(to: request)
                }
                sent += 1
                if let problem = Self.problem(response, documented: operation) {
                    problems.append("\(route.label) \(path)?\(query.map { "\($0.0)=\($0.1.prefix(40))" }.joined(separator: "&")) "
                                    + "body \(String(decoding: body.prefix(160), as: UTF8.self)): \(problem)")
                }
            }
        }
        #expect(sent >= server.application.router.routes.count * Self.rounds)
        #expect(problems.isEmpty, "seed \(Self.seed) (LINKRUNWAY_FUZZ_SEED repeats it):\n\(problems.prefix(40).map(Self.printable).joined(separator: "\n"))")
        #expect(await NoTrapTests.healthy(server))
        #expect(await server.admin.get("/v1/me").status == 200, "the API still answers")
        await server.stop()
    }

    static func split(_ target: String) -> (String, [(String, String)]) {
        let parts = target.split(separator: "?", maxSplits: 1).map(String.init)
        let query = parts.count > 1 ? parts[1].split(separator: "&").map { pair -> (String, String) in
            let kv = pair.split(separator: "=", maxSplits: 1).map(String.init)
            return (kv[0], kv.count > 1 ? (kv[1].removingPercentEncoding ?? kv[1]) : "")
        } : []
        return (parts[0], query)
    }

    /// The forms of a page: each one's action and the names of its fields.
    static func forms(_ html: String) -> [(action: String, fields: [String])] {
        var found: [(String, [String])] = []
        var rest = Substring(html)
        while let open = rest.range(of: "<form method=\"post\" action=\"") {
            let action = String(rest[open.upperBound...].prefix { $0 != "\"" })
            let end = rest.range(of: "</form>", range: open.upperBound..<rest.endIndex)?.lowerBound ?? rest.endIndex
            var fields: [String] = []
            var inner = rest[open.upperBound..<end]
            while let name = inner.range(of: " name=\"") {
                fields.append(String(inner[name.upperBound...].prefix { $0 != "\"" }))
                inner = inner[name.upperBound...]
            }
            found.append((action, fields))
            rest = rest[end...]
        }
        return found
    }

    @Test("every console page and the fields of every form on it, with values past their range: a page, never a fault",
          arguments: StoreBackend.all)
    func consoleForms(_ backend: StoreBackend) async throws {
        let world = try await AuthMatrixTests.makeWorld(backend)
        let server = world.server
        let visitor = ConsoleTests.Visitor(server.application)
        _ = await visitor.signIn(key: server.adminKey)
        let csrf = await visitor.csrf()
        let ws = world.workspaceA
        let ids = ["/console/apps/{id}": world.appA.id, "/console/links/{id}": world.linkA.id, "/console/affiliates/{id}": world.affiliateA,
                   "/console/webhooks/{id}": world.webhookA]
        var fuzzer = RequestFuzzer(seed: Self.seed)
        var problems: [String] = []
        var posted = 0
        for route in ConsolePages.routes where route.method == .GET {
            let path = ids[route.pattern].map { route.pattern.replacingOccurrences(of: "{id}", with: $0) } ?? route.pattern
            guard !path.contains("{") else { continue }
            let queries = ["?ws=\(ws)", "?ws=\(ws)&from=-1&to=9223372036854775807", "?ws=\(ws)&range=\(fuzzer.pick(RequestFuzzer.numbers))&cursor=%FF&app=x"]
            for query in queries {
                let page = await visitor.send("GET", path + query)
                if page.status >= 500 { problems.append("GET \(path)\(query): \(page.status)") }
            }
            let page = await visitor.send("GET", path + "?ws=\(ws)")
            for form in Self.forms(page.bodyText) where form.action.hasPrefix("/console/") && form.action != "/console/logout" {
                for _ in 0..<Self.rounds {
                    var fields: [(String, String)] = [("csrf", csrf), ("ws", ws)]
                    for name in form.fields where !["csrf", "ws"].contains(name) {
                        let value = fuzzer.chance(60) ? fuzzer.pick(RequestFuzzer.numbers) : fuzzer.pick(RequestFuzzer.texts)
                        fields.append((name, fuzzer.chance(30) ? "" : value))
                    }
                    let answer = await visitor.send("POST", form.action, form: fields)
                    posted += 1
                    if answer.status >= 500 {
                        problems.append("POST \(form.action) \(fields.map { "\($0.0)=\($0.1.prefix(24))" }.joined(separator: "&")): \(answer.status)")
                    }
                }
            }
        }
        #expect(posted > 50, "forms were found and sent")
        #expect(problems.isEmpty, "seed \(Self.seed):\n\(problems.prefix(40).map(Self.printable).joined(separator: "\n"))")
        #expect(await NoTrapTests.healthy(server))
        await server.stop()
    }

    @Test("App Store notifications signed by a test authority carrying extremes are answered as Apple's contract says", arguments: StoreBackend.all)
    func signedNotifications(_ backend: StoreBackend) async throws {
        let w = try await AffiliateAPITests.world(backend)
        let token = try await AffiliateAPITests.bind(w)
        var fuzzer = RequestFuzzer(seed: Self.seed)
        var problems: [String] = []
        let now = w.server.services.clock.nowMilliseconds()
        let numberFields = ["price", "purchaseDate", "expiresDate", "revocationDate", "revocationPercentage", "offerType", "quantity", "signedDate"]
        for round in 0..<(Self.rounds * 8) {
            var extra: [(String, JSONValue)] = []
            for _ in 0..<Int.random(in: 1...3, using: &fuzzer.random) {
                extra.append((fuzzer.pick(numberFields), .number(fuzzer.pick(RequestFuzzer.numbers))))
            }
            if fuzzer.chance(30) {
                extra.append(("commitmentInfo", .object([("totalBillingPeriods", .number(fuzzer.pick(RequestFuzzer.numbers))),
                                                         ("commitmentPrice", .number(fuzzer.pick(RequestFuzzer.numbers)))])))
            }
            if fuzzer.chance(20) { extra.append(("revocationType", "REFUND_PRORATED")) }
            if fuzzer.chance(20) { extra.append(("currency", .string(fuzzer.pick(["CLF", "JPY", "KWD", "", "ü"])))) }
            let type = fuzzer.pick(["SUBSCRIBED", "DID_RENEW", "REFUND", "ONE_TIME_CHARGE", "REVOKE", "CONSUMPTION_REQUEST"])
            let transaction = w.signer.transaction(id: "t-\(round)", original: "o-\(round % 5)", bundleId: AffiliateAPITests.bundleId, token: token,
                                                   purchaseDate: now, extra: extra)
            let payload = w.signer.notification(type, bundleId: AffiliateAPITests.bundleId, appAppleId: AffiliateAPITests.appAppleId,
                                                transaction: transaction, signedDate: now)
            let response = await w.server.client().send("POST", w.production.surface.notificationPath,
                                                        body: Array(#"{"signedPayload":"\#(payload)"}"#.utf8), remoteAddress: "198.18.9.\(round % 250 + 1)")
            if response.status >= 500 || ![200, 400].contains(response.status) {
                problems.append("\(type) with \(extra.map { "\($0.0)=\($0.1.serialized())" }): \(response.status) \(response.bodyText.prefix(200))")
            }
        }
        #expect(problems.isEmpty, "seed \(Self.seed):\n\(problems.prefix(20).map(Self.printable).joined(separator: "\n"))")
        #expect(await NoTrapTests.healthy(w.server))
        let balance = await w.server.admin.get("/v1/affiliates/\(w.affiliate.id)/balance")
        #expect(balance.status == 200, "balances still add up: \(balance.status) \(balance.bodyText.prefix(200))")
        try await AffiliateAPITests.checkLedger(w.server)
        await w.server.stop()
    }
}
