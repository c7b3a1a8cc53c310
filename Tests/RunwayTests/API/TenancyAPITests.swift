import Foundation
import LinkRunwayAPI
@testable import RunwayCapabilities
@testable import RunwayConsole
import RunwayHTTP
@testable import RunwayKit
@testable import RunwayServer
import RunwayTestKit
import Testing

@Suite("Tenancy API")
struct TenancyAPITests {
    @Test("first start creates one workspace and an admin key that works; a second bootstrap does nothing", arguments: StoreBackend.all)
    func bootstrap(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        let me = try await server.admin.get("/v1/me").decoded(WhoAmI.self)
        #expect(me.kind == .admin)
        #expect(me.workspaceId == nil)
        let workspaces = try await server.admin.get("/v1/workspaces").decoded(Page<Workspace>.self)
        #expect(workspaces.items == [server.defaultWorkspace])
        #expect(try await Bootstrap.run(store: server.store, clock: .system) == nil)
        await server.stop()
    }

    @Test("a list of a workspace that does not exist is a 404 for an admin key and a 403 for a server key, never an empty page")
    func listOfNoWorkspace() async throws {
        let server = try await TestServer.start()
        let serverKey = try await server.createKey(.server, workspace: server.defaultWorkspace.id)
        for path in ["/v1/apps", "/v1/keys", "/v1/domains", "/v1/links", "/v1/webhooks", "/v1/users", "/v1/affiliates"] {
            let missing = await server.admin.get("\(path)?workspaceId=ws_nope0000")
            #expect(missing.status == 404 && missing.errorCode == "not_found", "\(path): \(missing.status)")
            #expect(await server.client(serverKey.secret).get("\(path)?workspaceId=ws_nope0000").status == 403, "\(path)")
            #expect(await server.admin.get("\(path)?workspaceId=\(server.defaultWorkspace.id)").status == 200, "\(path)")
        }
        await server.stop()
    }

    @Test("apps are created, listed, shown and updated", arguments: StoreBackend.all)
    func appLifecycle(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        let ws = server.defaultWorkspace.id
        let app = try await server.createApp(in: ws)
        #expect(app.platforms == [.ios, .tvos])
        #expect(app.appStoreId == "123456789")
        #expect(try await server.admin.get("/v1/apps/\(app.id)").decoded(App.self) == app)

        let updated = try await server.admin.patch("/v1/apps/\(app.id)", UpdateAppRequest(name: "Renamed", platforms: [.macos])).decoded(App.self)
        #expect(updated.name == "Renamed")
        #expect(updated.platforms == [.macos])
        #expect(updated.bundleId == app.bundleId)

        let duplicate = try await server.admin.post("/v1/apps", CreateAppRequest(workspaceId: ws, name: "Again", teamId: "ABCDE12345", bundleId: "com.example.app"))
        #expect(duplicate.status == 409)
        #expect(duplicate.errorCode == "app_exists")
        let nowhere = try await server.admin.post("/v1/apps", CreateAppRequest(workspaceId: "ws_00000000000000000000", name: "X", teamId: "ABCDE12345",
                                                                               bundleId: "com.x.y"))
        #expect(nowhere.status == 400)
        #expect(nowhere.errorField == "workspaceId")
        await server.stop()
    }

    @Test("bad app fields are refused with the field named", arguments: [
        (#"{"name":"x","teamId":"abc","bundleId":"com.a.b"}"#, "teamId", "invalid_field"),
        (#"{"name":"x","teamId":"ABCDE12345","bundleId":"nodots"}"#, "bundleId", "invalid_field"),
        (#"{"name":"x","teamId":"ABCDE12345","bundleId":"com.a.b","appStoreId":"12a"}"#, "appStoreId", "invalid_field"),
        (#"{"name":"  ","teamId":"ABCDE12345","bundleId":"com.a.b"}"#, "name", "invalid_field"),
        (#"{"name":"x","teamId":"ABCDE12345","bundleId":"com.a.b","platforms":[]}"#, "platforms", "invalid_field"),
        (#"{"name":"x","teamId":"ABCDE12345","bundleId":"com.a.b","platforms":["ios","ios"]}"#, "platforms", "invalid_field"),
        (#"{"name":"x","teamId":"ABCDE12345","bundleId":"com.a.b","platforms":["android"]}"#, "platforms[0]", "invalid_field"),
        (#"{"name":"x","teamId":"ABCDE12345","bundleId":"com.a.b","colour":"red"}"#, "colour", "unknown_field"),
        (#"{"name":"x","teamId":"ABCDE12345"}"#, "bundleId", "missing_field"),
        (#"{"name":7,"teamId":"ABCDE12345","bundleId":"com.a.b"}"#, "name", "invalid_field"),
    ])
    func badAppFields(body: String, field: String, code: String) async throws {
        let server = try await TestServer.start()
        let server_key = try await server.createKey(.server, workspace: server.defaultWorkspace.id)
        let response = await server.client(server_key.secret).post("/v1/apps", json: body)
        #expect(response.status == 400)
        #expect(response.errorCode == code)
        #expect(response.errorField == field)
        await server.stop()
    }

    @Test("malformed JSON, an empty body and an oversized body get stable errors", arguments: StoreBackend.all)
    func malformedBodies(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend, maxBodyBytes: 64 * 1024)
        let malformed = await server.admin.post("/v1/workspaces", json: #"{"name": "x""#)
        #expect(malformed.status == 400)
        #expect(malformed.errorCode == "invalid_json")
        let empty = await server.admin.send("POST", "/v1/workspaces")
        #expect(empty.errorCode == "invalid_json")
        // The route's own limit (16 KiB) is below the server's.
        let big = await server.admin.post("/v1/workspaces", json: #"{"name":"\#(String(repeating: "x", count: 20_000))"}"#)
        #expect(big.status == 413)
        #expect(big.errorCode == "body_too_large")
        let huge = await server.admin.post("/v1/me", json: String(repeating: " ", count: 70_000))
        #expect(huge.status == 413)
        await server.stop()
    }

    @Test("keys: the secret is shown once, stored only as a hash, and revocation takes effect at once", arguments: StoreBackend.all)
    func keyLifecycle(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        let ws = server.defaultWorkspace.id
        let app = try await server.createApp(in: ws)
        let publishable = try await server.createKey(.publishable, app: app.id)
        #expect(publishable.secret.hasPrefix("lr_pk_"))
        #expect(publishable.key.appId == app.id)
        #expect(publishable.key.workspaceId == ws)
        let me = try await server.client(publishable.secret).get("/v1/me").decoded(WhoAmI.self)
        #expect(me == WhoAmI(keyId: publishable.key.id, kind: .publishable, workspaceId: ws, appId: app.id))

        // Nothing stored contains the secret; the hash is SHA-256 of it.
        let stored = try await server.store.read { try $0.query("SELECT * FROM api_keys").map { $0.values } }
        #expect(!stored.flatMap { $0 }.contains(.text(publishable.secret)))
        let listed = try await server.admin.get("/v1/keys").decoded(Page<APIKey>.self)
        #expect(!listed.items.isEmpty)
        #expect(!(await server.admin.get("/v1/keys").bodyText.contains(publishable.secret)))

        let server_key = try await server.createKey(.server, workspace: ws)
        let serverClient = server.client(server_key.secret)
        #expect(await serverClient.get("/v1/apps").status == 200)
        let revoked = try await server.admin.post("/v1/keys/\(server_key.key.id)/revoke", json: "{}").decoded(APIKey.self)
        #expect(revoked.revokedAt != nil)
        let after = await serverClient.get("/v1/apps")
        #expect(after.status == 401)
        #expect(after.errorCode == "revoked_key")
        // Revoking again is harmless.
        #expect(await server.admin.post("/v1/keys/\(server_key.key.id)/revoke", json: "{}").status == 200)
        await server.stop()
    }

    @Test("the last admin key cannot be revoked", arguments: StoreBackend.all)
    func lastAdminKey(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        let me = try await server.admin.get("/v1/me").decoded(WhoAmI.self)
        let refused = await server.admin.post("/v1/keys/\(me.keyId)/revoke", json: "{}")
        #expect(refused.status == 409)
        #expect(refused.errorCode == "last_admin_key")
        let second = try await server.createKey(.admin)
        #expect(await server.client(second.secret).post("/v1/keys/\(me.keyId)/revoke", json: "{}").status == 200)
        #expect(await server.admin.get("/v1/me").status == 401)
        await server.stop()
    }

    @Test("key rules: publishable keys need an app, server keys cannot make admin keys, scopes stay in their workspace", arguments: StoreBackend.all)
    func keyRules(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        let ws = server.defaultWorkspace.id
        let other = try await server.createWorkspace("Other")
        let otherApp = try await server.createApp(in: other.id)
        let serverKey = try await server.createKey(.server, workspace: ws)
        let client = server.client(serverKey.secret)

        #expect(try await client.post("/v1/keys", CreateKeyRequest(kind: .publishable)).errorCode == "missing_field")
        #expect(try await client.post("/v1/keys", CreateKeyRequest(kind: .admin)).errorCode == "key_kind_forbidden")
        #expect(try await client.post("/v1/keys", CreateKeyRequest(kind: .publishable, appId: otherApp.id)).errorCode == "workspace_forbidden")
        #expect(try await client.post("/v1/keys", CreateKeyRequest(kind: .server, workspaceId: other.id)).errorCode == "workspace_forbidden")
        #expect(await client.post("/v1/keys", json: #"{"kind":"superuser"}"#).errorField == "kind")
        let own = try await client.post("/v1/keys", CreateKeyRequest(kind: .server, name: "ci"))
        #expect(try own.decoded(CreatedKey.self, status: 201).key.workspaceId == ws)
        // A server key lists only its own workspace's keys and apps.
        let keys = try await client.get("/v1/keys").decoded(Page<APIKey>.self)
        #expect(keys.items.allSatisfy { $0.workspaceId == ws })
        #expect(await client.get("/v1/apps?workspaceId=\(other.id)").status == 403)
        // Nor can it read or revoke an admin key, or another workspace's key.
        let adminKey = try #require(try await server.admin.get("/v1/keys").decoded(Page<APIKey>.self).items.first { $0.kind == .admin })
        let otherKey = try await server.createKey(.server, workspace: other.id)
        for id in [adminKey.id, otherKey.key.id] {
            #expect(await client.get("/v1/keys/\(id)").status == 403, "read \(id)")
            #expect(await client.post("/v1/keys/\(id)/revoke", json: "{}").status == 403, "revoke \(id)")
        }
        #expect(try await server.admin.get("/v1/keys/\(adminKey.id)").decoded(APIKey.self).revokedAt == nil, "the admin key still works")
        await server.stop()
    }

    @Test("lists page with limit and cursor, oldest first", arguments: StoreBackend.all)
    func paging(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        let ws = server.defaultWorkspace.id
        var created: [String] = []
        for i in 0..<7 { created.append(try await server.createApp(in: ws, bundleId: "com.example.app\(i)").id) }
        var seen: [String] = []
        var cursor: String?
        repeat {
            let page = try await server.admin.get("/v1/apps?limit=3" + (cursor.map { "&cursor=\($0)" } ?? "")).decoded(Page<App>.self)
            #expect(page.items.count <= 3)
            seen += page.items.map(\.id)
            cursor = page.nextCursor
        } while cursor != nil
        #expect(Set(seen) == Set(created))
        #expect(seen.count == created.count)
        #expect(await server.admin.get("/v1/apps?limit=0").errorCode == "invalid_query")
        #expect(await server.admin.get("/v1/apps?limit=abc").errorCode == "invalid_query")
        await server.stop()
    }

    @Test("health, readiness and metrics answer without a key", arguments: StoreBackend.all)
    func operations(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        let client = server.client()
        #expect(try await client.get("/healthz").decoded(HealthStatus.self).status == "ok")
        #expect(try await client.check("/readyz").decoded(ReadinessStatus.self).status == "ready")
        _ = try await server.createApp(in: server.defaultWorkspace.id)
        // Never on a link domain (the test client's Host is the default one, localhost); on the API's address it is.
        #expect(await client.get("/metrics").status == 404)
        let metrics = await client.get("/metrics", headers: [("Host", "127.0.0.1:8080")]).bodyText
        #expect(metrics.contains(#"linkrunway_http_requests_total{route="POST /v1/apps",status="201"} 1"#))
        #expect(metrics.contains("linkrunway_http_request_duration_seconds_bucket"))
        #expect(metrics.contains("linkrunway_store_write_batch_size_count"))
        #expect(metrics.contains("linkrunway_store_commit_duration_seconds_sum"))
        await server.stop()
        // With the store closed, readiness says so and management calls get 503, not 500.
        let down = await client.get("/readyz")
        #expect(down.status == 503)
        let refused = await server.admin.get("/v1/apps")
        #expect(refused.status == 503)
        #expect(refused.errorCode == "store_unavailable")
    }

    @Test("with LINKRUNWAY_METRICS_TOKEN, /metrics answers only that bearer")
    func metricsToken() async throws {
        let server = try await TestServer.start(metricsToken: "scrape-token-0123456789")
        let client = server.client()
        let api = ("Host", "127.0.0.1:8080")
        #expect(await client.get("/metrics", headers: [api]).status == 401)
        #expect(await client.get("/metrics", headers: [api, ("Authorization", "Bearer scrape-token-012345678")]).status == 401)
        #expect(await server.admin.get("/metrics", headers: [api]).status == 401, "an API key is not the metrics token")
        let scraped = await client.get("/metrics", headers: [api, ("Authorization", "Bearer scrape-token-0123456789")])
        #expect(scraped.status == 200 && scraped.bodyText.contains("linkrunway_http_requests_total"))
        await server.stop()
    }

    @Test("the access log has one JSON line per request with the route pattern, never the key, the query or an id from the path")
    func accessLog() async throws {
        let server = try await TestServer.start()
        _ = await server.admin.get("/v1/apps?secret=hidden", headers: [("X-Request-Id", "req-123")])
        _ = await server.admin.get("/v1/installs/install-to-forget-7/attribution")
        _ = await server.admin.get("/v1/referral-codes/CODE7777")
        let lines = server.logs.lines.filter { $0.contains(#""msg":"request""#) }
        #expect(lines.count == 3)
        #expect(lines[0].contains(#""requestId":"req-123""#))
        #expect(lines[0].contains(#""route":"/v1/apps""#))
        #expect(lines[2].contains(#""route":"/v1/referral-codes/{code}""#))
        #expect(!lines.joined().contains(server.adminKey))
        #expect(!lines.joined().contains("hidden"))
        #expect(!lines.joined().contains("install-to-forget-7") && !lines.joined().contains("CODE7777"))
        await server.stop()
    }
}
