import Foundation
import LinkRunwayAPI
@testable import RunwayCapabilities
@testable import RunwayConsole
import RunwayCrypto
import RunwayGeo
import RunwayHTTP
import RunwayHTTPServer
@testable import RunwayKit
@testable import RunwayOutbound
@testable import RunwayServer
import RunwayTestKit
import Synchronization
import Testing

@Suite("Webhooks")
struct WebhookTests {
    /// A real HTTP endpoint on loopback that records what it receives and fails the first `failures` deliveries.
    final class Receiver: Sendable {
        let server: HTTPServer
        private let received = Mutex<[HTTPRequest]>([])
        private let remainingFailures: Mutex<Int>
        /// Where every answer redirects to, if anywhere.
        let redirect: String?

        init(failures: Int, redirect: String? = nil) throws {
            remainingFailures = Mutex(failures)
            self.redirect = redirect
            var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0, threads: 1)
            configuration.maxConnectionsPerAddress = 0
            let box = Box()
            server = HTTPServer(configuration: configuration, logger: Logger(level: .error, sink: .memory())) { request in
                box.receiver?.handle(request) ?? HTTPResponse(status: 503)
            }
            box.receiver = self
            try server.start()
        }

        final class Box: @unchecked Sendable { weak var receiver: Receiver? }

        func handle(_ request: HTTPRequest) -> HTTPResponse {
            received.withLock { $0.append(request) }
            if let redirect {
                var response = HTTPResponse(status: 302)
                response.headers.set("Location", redirect)
                return response
            }
            let fail = remainingFailures.withLock { remaining -> Bool in
                defer { remaining -= 1 }
                return remaining > 0
            }
            return HTTPResponse(status: fail ? 500 : 204)
        }

        var requests: [HTTPRequest] { received.withLock { $0 } }
        var url: String { "http://127.0.0.1:\(server.port)/hook" }
    }

    @Test("deliveries are queued with the install, signed, retried with backoff until they land, and visible")
    func deliveryAndRetry() async throws {
        let w = try await MatchingTests.world(outbound: Self.privateNetwork)
        let receiver = try Receiver(failures: 1)
        let created = try await w.server.admin.post("/v1/webhooks", CreateWebhookRequest(workspaceId: w.server.defaultWorkspace.id, url: receiver.url,
                                                                                          topics: ["install", "event"]))
            .decoded(CreatedWebhook.self, status: 201)
        #expect(created.secret.hasPrefix("whsec_"))
        let match = try await MatchingTests.match(w, install: "hooked")
        // Queued in the same transaction as the install: there before any dispatcher ran.
        let queued = try await w.server.admin.get("/v1/webhooks/\(created.webhook.id)/deliveries").decoded(WebhookDeliveryList.self)
        #expect(queued.items.map(\.status) == ["pending"])

        let dispatcher = OutboxDispatcher(services: w.server.services, queue: Webhooks.outbox, settings: .init(baseDelayMilliseconds: 0, maxAttempts: 5, timeoutSeconds: 60))
        #expect(try await dispatcher.sendDue() == 1)
        #expect(try await w.server.admin.get("/v1/webhooks/\(created.webhook.id)/deliveries").decoded(WebhookDeliveryList.self).items[0].lastStatus == 500)
        #expect(try await dispatcher.sendDue() == 1)
        let delivered = try await w.server.admin.get("/v1/webhooks/\(created.webhook.id)/deliveries").decoded(WebhookDeliveryList.self).items[0]
        #expect(delivered.status == "delivered")
        #expect(delivered.attempts == 2)
        #expect(delivered.lastStatus == 204)
        #expect(try await dispatcher.sendDue() == 0, "nothing is sent twice")

        let requests = receiver.requests
        #expect(requests.count == 2)
        let last = try #require(requests.last)
        #expect(last.body == requests[0].body, "a retry sends the same body")
        // t is the Unix time in seconds, so a receiver can refuse a replayed delivery by its age.
        let sentAt = try Self.signedAt(last, secret: created.secret)
        #expect(abs(sentAt - Int64(w.server.services.clock.now().timeIntervalSince1970)) <= 60, "t=\(sentAt)")
        let body = try JSONDecoder().decode(WebhookBody.self, from: Data(last.body))
        #expect(body.topic == "install")
        #expect(body.data == match)
        #expect(last.headers["LinkRunway-Delivery"] == body.id)
        await receiver.server.shutdown()
        await w.server.stop()
    }

    @Test("a delivery that keeps failing is given up after the last attempt")
    func givingUp() async throws {
        let w = try await MatchingTests.world(outbound: Self.privateNetwork)
        let receiver = try Receiver(failures: 100)
        let created = try await w.server.admin.post("/v1/webhooks", CreateWebhookRequest(workspaceId: w.server.defaultWorkspace.id, url: receiver.url, topics: ["event"]))
            .decoded(CreatedWebhook.self, status: 201)
        _ = try await MatchingTests.match(w, install: "hooked")
        _ = try await w.server.client(w.key).post("/v1/events", EventTests.event("w1", install: "hooked")).decoded(EventResult.self, status: 201)
        let dispatcher = OutboxDispatcher(services: w.server.services, queue: Webhooks.outbox, settings: .init(baseDelayMilliseconds: 0, maxAttempts: 3, timeoutSeconds: 60))
        for _ in 0..<5 { _ = try await dispatcher.sendDue() }
        let items = try await w.server.admin.get("/v1/webhooks/\(created.webhook.id)/deliveries").decoded(WebhookDeliveryList.self).items
        #expect(items.count == 1, "only the event topic was asked for")
        #expect(items[0].status == "failed")
        #expect(items[0].attempts == 3)
        #expect(items[0].lastError == "http_500", "a short stable reason, never the transport's text")
        #expect(receiver.requests.count == 3)
        await receiver.server.shutdown()
        await w.server.stop()
    }

    @Test("click webhooks announce clicks, never the address")
    func clickTopic() async throws {
        let w = try await MatchingTests.world(outbound: Self.privateNetwork)
        let receiver = try Receiver(failures: 0)
        _ = try await w.server.admin.post("/v1/webhooks", CreateWebhookRequest(workspaceId: w.server.defaultWorkspace.id, url: receiver.url, topics: ["click"]))
            .decoded(CreatedWebhook.self, status: 201)
        _ = await w.server.follow("/promo", userAgent: UserAgents.iPhone)
        let dispatcher = OutboxDispatcher(services: w.server.services, queue: Webhooks.outbox, settings: .init(baseDelayMilliseconds: 0, timeoutSeconds: 60))
        #expect(try await dispatcher.sendDue() == 1)
        let body = try #require(receiver.requests.first).body
        let text = String(decoding: body, as: UTF8.self)
        #expect(text.contains(#""topic":"click""#) && text.contains(w.link.id))
        #expect(!text.contains("203.0.113.7"))
        let hash = try await w.server.store.read { try $0.first("SELECT address_hash FROM clicks")!.string("address_hash") }
        #expect(!text.contains(hash))
        let data = try #require((try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])?["data"] as? [String: Any])
        #expect(data["qr"] as? Bool == false && data["variant"] == nil && data["country"] == nil, "\(data)")
        await receiver.server.shutdown()
        await w.server.stop()
    }

    @Test("a click webhook carries the variant drawn, the address's country and whether it was a scan", arguments: StoreBackend.all)
    func clickDetails(_ backend: StoreBackend) async throws {
        let folder = TemporaryDirectory()
        let countries = try CountryDatabase(path: try CountryDatabaseTests.database(in: folder))
        let server = try await TestServer.start(backend, outbound: Self.privateNetwork, countries: countries)
        let receiver = try Receiver(failures: 0)
        _ = try await server.admin.post("/v1/webhooks", CreateWebhookRequest(workspaceId: server.defaultWorkspace.id, url: receiver.url, topics: ["click"]))
            .decoded(CreatedWebhook.self, status: 201)
        _ = try await server.createLink(CreateLinkRequest(workspaceId: server.defaultWorkspace.id, path: "drawn",
                                                                         destinations: LinkDestinations(web: "https://example.com"),
                                                                         variants: [LinkVariant(name: "only", weight: 1, url: "https://example.com/v")]))
        #expect(await server.follow("/drawn?qr=1", userAgent: UserAgents.iPhone).status == 302)
        let dispatcher = OutboxDispatcher(services: server.services, queue: Webhooks.outbox, settings: .init(baseDelayMilliseconds: 0, timeoutSeconds: 60))
        #expect(try await dispatcher.sendDue() == 1)
        let body = try #require(receiver.requests.first).body
        let data = try #require((try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])?["data"] as? [String: Any])
        #expect(data["variant"] as? String == "only" && data["country"] as? String == "FR" && data["qr"] as? Bool == true, "\(data)")
        #expect(!String(decoding: body, as: UTF8.self).contains("203.0.113.7"), "the country, never the address")
        await receiver.server.shutdown()
        await server.stop()
    }

    @Test("a delivery the outbound policy refuses is logged once per endpoint, with its host and reason, never its path")
    func refusedDeliveryLogged() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let ws = server.defaultWorkspace.id
        let hook = try await server.admin.post("/v1/webhooks", CreateWebhookRequest(workspaceId: ws, url: "https://hooks.example.com/h", topics: ["click"]))
            .decoded(CreatedWebhook.self, status: 201)
        // As an older release, whose policy allowed it, stored it: the policy refuses it only when it is sent.
        try await server.store.write { db in try db.execute("UPDATE webhooks SET url = 'http://127.0.0.1:9/secret-path' WHERE id = \(hook.webhook.id)") }
        _ = try await server.createLink(CreateLinkRequest(workspaceId: ws, path: "told", destinations: LinkDestinations(web: "https://example.com")))
        #expect(await server.follow("/told", userAgent: UserAgents.desktop).status == 302)
        let dispatcher = OutboxDispatcher(services: server.services, queue: Webhooks.outbox, settings: .init(baseDelayMilliseconds: 0, timeoutSeconds: 5))
        #expect(try await dispatcher.sendDue() == 1)
        #expect(try await dispatcher.sendDue() == 1, "retried, as the policy may change")
        let told = server.logs.lines.filter { $0.contains("outbound delivery refused by the outbound policy") }
        #expect(told.count == 1, "once for the endpoint, not once an attempt: \(told)")
        #expect(told.first?.contains("127.0.0.1") == true && told.first?.contains("blocked_") == true, "\(told)")
        #expect(told.first?.contains("secret-path") == false, "the path may hold the tenant's token")
    }

    /// The `t` of a delivery's `LinkRunway-Signature`, once its `v1` is checked as a receiver would: the hex HMAC-SHA256 of
    /// "t." and the raw body under the whole secret.
    static func signedAt(_ request: HTTPRequest, secret: String) throws -> Int64 {
        let signature = try #require(request.headers["LinkRunway-Signature"])
        let parts = Dictionary(uniqueKeysWithValues: signature.split(separator: ",").map { part -> (String, String) in
            let pair = part.split(separator: "=", maxSplits: 1)
            return (String(pair[0]), String(pair[1]))
        })
        let t = try #require(parts["t"])
        #expect(parts["v1"] == ByteEncoding.hex(Digest.hmacSHA256(key: Array(secret.utf8), message: Array("\(t).".utf8) + request.body)))
        return try #require(Int64(t))
    }

    /// Sets the app's postbacks to forward to `url` alone.
    static func forward(_ w: MatchingTests.World, to url: String) async throws -> HTTPResponse {
        try await w.server.admin.patch("/v1/apps/\(w.app.id)", UpdateAppRequest(postbacks: PostbackSettings(acceptDevelopment: false, forwardUrls: [url], campaigns: [])))
    }

    /// Loopback receivers need the operator's switch for private targets.
    static let privateNetwork = OutboundPolicy(allowPrivateTargets: true)

    /// Every spelling of an address on this machine or a private network that a tenant might type.
    static let privateTargets = [
        "https://127.0.0.1/h", "https://127.0.0.1:8443/h", "http://127.0.0.1:9/h", "https://169.254.169.254/latest/meta-data", "https://10.0.0.1/",
        "https://172.16.5.4/", "https://192.168.1.1/", "https://100.64.0.1/", "https://0.0.0.0/", "https://224.0.0.1/", "https://[::1]/",
        "https://[::]/", "https://[::ffff:127.0.0.1]/", "https://[::ffff:7f00:1]/", "https://[::ffff:169.254.169.254]/", "https://[fd00::1]/",
        "https://[fe80::1]/", "https://[64:ff9b::a00:1]/", "https://[2002:7f00:1::]/", "https://2130706433/", "https://0x7f000001/",
        "https://0177.0.0.1/", "https://127.1/", "https://0x7f.1/", "https://017700000001/", "https://localhost/", "https://LOCALHOST./",
        "https://api.localhost/", "https://printer.local/", "https://metadata.google.internal/", "https://intranet/",
        "https://user:pass@example.com/",
    ]

    @Test("endpoints must be public https URLs in every spelling, and name known topics; the operator's switch allows private ones")
    func validation() async throws {
        let w = try await MatchingTests.world()
        let ws = w.server.defaultWorkspace.id
        for url in Self.privateTargets {
            let refused = try await w.server.admin.post("/v1/webhooks", CreateWebhookRequest(workspaceId: ws, url: url, topics: ["install"]))
            #expect(refused.status == 400 && refused.errorField == "url", "\(url) was not refused: \(refused.status)")
            let forward = try await Self.forward(w, to: url)
            #expect(forward.errorField == "postbacks.forwardUrls[0]", "\(url) was not refused as a forwarding target")
        }
        for url in ["https://example.com/h", "https://93.184.216.34/h", "https://[2606:2800:220:1:248:1893:25c8:1946]/h"] {
            #expect(try await w.server.admin.post("/v1/webhooks", CreateWebhookRequest(workspaceId: ws, url: url, topics: ["install"])).status == 201, "\(url)")
        }
        let open = try await MatchingTests.world(outbound: Self.privateNetwork)
        #expect(try await open.server.admin.post("/v1/webhooks", CreateWebhookRequest(workspaceId: open.server.defaultWorkspace.id, url: "http://127.0.0.1:9/h",
                                                                                      topics: ["install"])).status == 201)
        await open.server.stop()
        #expect(try await w.server.admin.post("/v1/webhooks", CreateWebhookRequest(workspaceId: ws, url: "http://example.com/h", topics: ["install"])).errorField == "url")
        #expect(try await w.server.admin.post("/v1/webhooks", CreateWebhookRequest(workspaceId: ws, url: "https://example.com/h", topics: ["purchase"])).errorField
                == "topics")
        #expect(try await w.server.admin.post("/v1/webhooks", CreateWebhookRequest(workspaceId: ws, url: "https://example.com/h", topics: [])).errorField == "topics")
        let listed = try await w.server.admin.get("/v1/webhooks").decoded(Page<WebhookEndpoint>.self)
        #expect(listed.items.count == 3)
        await w.server.stop()
    }

    @Test("webhooks and forwarding URLs reach port 443 only unless the operator allows others, checked again at the socket",
          arguments: StoreBackend.all)
    func ports(_ backend: StoreBackend) async throws {
        let w = try await MatchingTests.world(backend)
        let ws = w.server.defaultWorkspace.id
        for url in ["https://example.com:8443/h", "https://example.com:22/h", "https://93.184.216.34:6379/", "http://example.com:443/h"] {
            let refused = try await w.server.admin.post("/v1/webhooks", CreateWebhookRequest(workspaceId: ws, url: url, topics: ["install"]))
            #expect(refused.status == 400 && refused.errorField == "url", "\(url) was not refused: \(refused.status)")
            let forward = try await Self.forward(w, to: url)
            #expect(forward.errorField == "postbacks.forwardUrls[0]", "\(url) was not refused as a forwarding target")
        }
        let refusal = try await w.server.admin.post("/v1/webhooks", CreateWebhookRequest(workspaceId: ws, url: "https://example.com:8443/h", topics: ["install"]))
        #expect(refusal.bodyText.contains("must use port 443"), "\(refusal.bodyText)")
        #expect(try await w.server.admin.post("/v1/webhooks", CreateWebhookRequest(workspaceId: ws, url: "https://example.com:443/h", topics: ["install"])).status == 201)
        await w.server.stop()

        let wider = try await MatchingTests.world(backend, outbound: OutboundPolicy(allowedPorts: [443, 8443]))
        let wws = wider.server.defaultWorkspace.id
        #expect(try await wider.server.admin.post("/v1/webhooks", CreateWebhookRequest(workspaceId: wws, url: "https://example.com:8443/h", topics: ["install"])).status
                == 201)
        #expect(try await wider.server.admin.post("/v1/webhooks", CreateWebhookRequest(workspaceId: wws, url: "https://example.com:22/h", topics: ["install"])).errorField
                == "url")
        await wider.server.stop()

        // The port libcurl really connects to is checked too: a loopback receiver on its own port, with private
        // targets on but only 443 allowed, is never reached.
        let receiver = try Receiver(failures: 0)
        let onlyTLS = OutboundPolicy(allowPrivateTargets: true, allowedPorts: [443])
        #expect(OutboundPost.perform(url: receiver.url, headers: [:], body: [], timeoutSeconds: 5, policy: onlyTLS) == .failed(reason: "blocked_port", status: nil))
        #expect(await OutboundPost.send(url: receiver.url, headers: [:], body: [], timeoutSeconds: 5, policy: onlyTLS) == .failed(reason: "blocked_port", status: nil))
        #expect(receiver.requests.isEmpty)
        // Sent from a thread of its own: the receiver answers on the cooperative pool this test would otherwise hold.
        #expect(await OutboundPost.send(url: receiver.url, headers: [:], body: [], timeoutSeconds: 5, policy: Self.privateNetwork) == .delivered(status: 204),
                "private targets on and no port list: any port, as before")
        await receiver.server.shutdown()

        let any = try ServerConfiguration.load(environment: ["LINKRUNWAY_OUTBOUND_PORTS": "any"], flags: [:])
        #expect(any.outbound.allows(port: 8080) && any.outbound.allows(port: 443))
        let listed = try ServerConfiguration.load(environment: ["LINKRUNWAY_OUTBOUND_PORTS": "443, 8443"], flags: [:])
        #expect(listed.outbound.allowedPorts == [443, 8443])
        #expect(try ServerConfiguration.load(environment: [:], flags: [:]).outbound.allows(port: 443))
        #expect(try !ServerConfiguration.load(environment: [:], flags: [:]).outbound.allows(port: 8443))
        for bad in ["0", "65536", "443;8443", "https", "-1"] {
            #expect(throws: (any Error).self, "\(bad)") { try ServerConfiguration.load(environment: ["LINKRUNWAY_OUTBOUND_PORTS": bad], flags: [:]) }
        }
    }

    @Test("at send time the address connected to is checked again: a stored loopback target is never reached without the switch")
    func sendTimeCheck() async throws {
        let w = try await MatchingTests.world()
        let receiver = try Receiver(failures: 0)
        // As if the endpoint had been accepted when its name still resolved elsewhere.
        try await w.server.store.write { db in
            try db.execute("""
                INSERT INTO webhooks (id, workspace_id, url, secret, topics, enabled, created_at)
                VALUES ('whk_planted', \(w.server.defaultWorkspace.id), \(receiver.url), 'whsec_x', 'install', 1, 0)
                """)
        }
        _ = try await MatchingTests.match(w, install: "hooked")
        let dispatcher = OutboxDispatcher(services: w.server.services, queue: Webhooks.outbox, settings: .init(baseDelayMilliseconds: 0, timeoutSeconds: 60))
        #expect(try await dispatcher.sendDue() == 1)
        let delivery = try await w.server.admin.get("/v1/webhooks/whk_planted/deliveries").decoded(WebhookDeliveryList.self).items[0]
        #expect(delivery.status == "pending" && delivery.lastError == "blocked_scheme" && delivery.lastStatus == nil)

        // The socket itself: libcurl resolves 127.0.0.1 and is refused the connection by our check, for https too.
        let port = receiver.server.port
        let blocked = OutboundPost.perform(url: "https://127.0.0.1:\(port)/hook", headers: [:], body: [], timeoutSeconds: 5, policy: OutboundPolicy())
        #expect(blocked == .failed(reason: "blocked_address", status: nil))
        let blockedV6 = OutboundPost.perform(url: "https://[::ffff:127.0.0.1]:\(port)/hook", headers: [:], body: [], timeoutSeconds: 5, policy: OutboundPolicy())
        #expect(blockedV6 == .failed(reason: "blocked_address", status: nil))
        #expect(receiver.requests.isEmpty, "nothing reached the loopback receiver")

        // With the switch, the same receiver is reached; a closed port is a stable reason, not the transport's text.
        #expect(OutboundPost.perform(url: receiver.url, headers: [:], body: [], timeoutSeconds: 5, policy: Self.privateNetwork) == .delivered(status: 204))
        #expect(OutboundPost.perform(url: "http://127.0.0.1:1/hook", headers: [:], body: [], timeoutSeconds: 5, policy: Self.privateNetwork)
                == .failed(reason: "connect_failed", status: nil))
        await receiver.server.shutdown()
        await w.server.stop()
    }

    @Test("redirects are never followed: a 3xx is a failed delivery with its status, and its target hears nothing")
    func redirectsNotFollowed() async throws {
        let w = try await MatchingTests.world(outbound: Self.privateNetwork)
        let target = try Receiver(failures: 0)
        let redirecting = try Receiver(failures: 0, redirect: target.url)
        let created = try await w.server.admin.post("/v1/webhooks", CreateWebhookRequest(workspaceId: w.server.defaultWorkspace.id, url: redirecting.url,
                                                                                          topics: ["install"]))
            .decoded(CreatedWebhook.self, status: 201)
        _ = try await MatchingTests.match(w, install: "hooked")
        let dispatcher = OutboxDispatcher(services: w.server.services, queue: Webhooks.outbox, settings: .init(baseDelayMilliseconds: 0, timeoutSeconds: 60))
        #expect(try await dispatcher.sendDue() == 1)
        let delivery = try await w.server.admin.get("/v1/webhooks/\(created.webhook.id)/deliveries").decoded(WebhookDeliveryList.self).items[0]
        #expect(delivery.status == "pending" && delivery.lastStatus == 302 && delivery.lastError == "http_302")
        #expect(redirecting.requests.count == 1 && target.requests.isEmpty)
        await target.server.shutdown()
        await redirecting.server.shutdown()
        await w.server.stop()
    }

    struct WebhookBody: Decodable {
        let id: String
        let topic: String
        let data: InstallMatch
    }
}
