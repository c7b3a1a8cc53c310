import Foundation
import LinkRunwayAPI
@testable import RunwayCapabilities
@testable import RunwayConsole
import RunwayHTTP
import RunwayJSON
@testable import RunwayKit
@testable import RunwayServer
import RunwayStore
import RunwayTestKit
import Testing

@Suite("Link association, resolve, shares, referral codes")
struct LinkClientTests {
    @Test("click tokens sort by when they were made, carry 24 random characters, and are all different")
    func clickTokens() {
        let times: [Int64] = [0, 61, 1_700_000_000_000, 1_800_000_000_000, 1_800_000_000_001]
        let tokens = times.map { Clicks.newToken(at: $0) }
        #expect(tokens.allSatisfy { $0.count == 32 && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } })
        #expect(tokens == tokens.sorted(), "index order is time order")
        #expect(tokens[0].hasPrefix("00000000") && tokens[1].hasPrefix("0000000z"), "61 is \"z\" in base62's last place")
        let same = (0..<1000).map { _ in Clicks.newToken(at: 1_800_000_000_000) }
        #expect(Set(same).count == 1000 && Set(same.map { $0.prefix(8) }).count == 1)
    }

    @Test("shares are capped per install and per app a day, so the app's key cannot fill a domain with links")
    func sharesCapped() async throws {
        let server = try await TestServer.start()
        let app = try await server.createApp(in: server.defaultWorkspace.id)
        let client = server.client(try await server.createKey(.publishable, app: app.id).secret)
        var statuses: [Int] = []
        for i in 0...ClientLinkHandlers.sharesPerInstallPerDay {
            statuses.append(try await client.post("/v1/shares", CreateShareRequest(installId: "sharer", appPath: "/p/\(i)")).status)
        }
        #expect(statuses.dropLast().allSatisfy { $0 == 201 } && statuses.last == 429, "\(Set(statuses))")
        let refused = try await client.post("/v1/shares", CreateShareRequest(installId: "sharer", appPath: "/p/x"))
        #expect(refused.errorCode == "rate_limited" && refused.bodyText.contains("this install"))
        #expect(try await client.post("/v1/shares", CreateShareRequest(installId: "another", appPath: "/p/y")).status == 201)
        await server.stop()
    }

    @Test("the AASA names each app once with its live links' paths, as JSON, never redirected", arguments: StoreBackend.all)
    func appleAppSiteAssociation(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        let ws = server.defaultWorkspace.id
        let app = try await server.createApp(in: ws)
        let second = try await server.createApp(in: ws, bundleId: "com.example.second", teamId: "ZYXWV98765")
        _ = try await server.createLink(CreateLinkRequest(workspaceId: ws, appId: app.id, path: "Summer"))
        _ = try await server.createLink(CreateLinkRequest(workspaceId: ws, appId: app.id, path: "deep/winter"))
        _ = try await server.createLink(CreateLinkRequest(workspaceId: ws, appId: second.id, path: "other"))
        _ = try await server.createLink(CreateLinkRequest(workspaceId: ws, appId: app.id, path: "old", expiresAt: "2020-01-01T00:00:00Z"))
        let off = try await server.createLink(CreateLinkRequest(workspaceId: ws, appId: app.id, path: "off"))
        _ = try await server.admin.post("/v1/links/\(off.id)/disable", json: "{}").decoded(Link.self)

        for path in ["/.well-known/apple-app-site-association", "/apple-app-site-association"] {
            let response = await server.follow(path, userAgent: nil)
            #expect(response.status == 200)
            #expect(response.headers["Content-Type"] == "application/json")
            #expect(response.headers["Cache-Control"]?.contains("max-age") == true)
            let document = try #require(response.json)
            let details = try #require(document["applinks"]?["details"]?.arrayValue)
            #expect(details.count == 2)
            let byApp = Dictionary(uniqueKeysWithValues: details.map { ($0["appIDs"]!.arrayValue![0].stringValue!, $0["components"]!.arrayValue!) })
            #expect(byApp["ABCDE12345.com.example.app"]?.compactMap { $0["/"]?.stringValue } == ["/Summer", "/deep/winter"])
            #expect(byApp["ABCDE12345.com.example.app"]?.allSatisfy { $0["caseSensitive"] == false } == true)
            #expect(byApp["ZYXWV98765.com.example.second"]?.compactMap { $0["/"]?.stringValue } == ["/other"])
        }
        #expect(await server.follow("/.well-known/apple-app-site-association", userAgent: nil, host: "unknown.example").status == 404)
        await server.stop()
    }

    @Test("the association file is made once per domain: a change here shows at once, one made by another process within a minute")
    func associationCached() async throws {
        let clock = ManualClock()
        let server = try await TestServer.start(monotonic: clock.monotonic)
        let ws = server.defaultWorkspace.id
        let app = try await server.createApp(in: ws)
        let summer = try await server.createLink(CreateLinkRequest(workspaceId: ws, appId: app.id, path: "summer"))
        func paths() async throws -> [String] {
            let document = try #require(await server.follow("/.well-known/apple-app-site-association", userAgent: nil).json)
            return document["applinks"]?["details"]?.arrayValue?.first?["components"]?.arrayValue?.compactMap { $0["/"]?.stringValue } ?? []
        }
        #expect(try await paths() == ["/summer"])
        _ = try await server.createLink(CreateLinkRequest(workspaceId: ws, appId: app.id, path: "winter"))
        #expect(try await paths() == ["/summer", "/winter"], "a link made through this process shows at once")
        // Another process renames a link: this one answers from its copy until the minute is up.
        try await server.store.write { db in try db.execute("UPDATE links SET path = 'autumn' WHERE id = \(summer.id)") }
        #expect(try await paths() == ["/summer", "/winter"], "served from the cache, not read again")
        clock.advance(seconds: 61)
        #expect(try await paths().sorted() == ["/autumn", "/winter"])
        // An app changed through this process shows at once: every association file is made again.
        try await server.store.write { db in try db.execute("UPDATE links SET path = 'spring' WHERE id = \(summer.id)") }
        _ = try await server.admin.patch("/v1/apps/\(app.id)", UpdateAppRequest(bundleId: "com.example.renamed")).decoded(App.self)
        let document = try #require(await server.follow("/.well-known/apple-app-site-association", userAgent: nil).json)
        #expect(document["applinks"]?["details"]?.arrayValue?.first?["appIDs"]?.arrayValue?.compactMap(\.stringValue) == ["ABCDE12345.com.example.renamed"])
        #expect(try await paths().sorted() == ["/spring", "/winter"], "made again, so another process's rename shows too")
        await server.stop()
    }

    @Test("an app with very many links claims the domain but the server's own routes")
    func associationFallback() async throws {
        let server = try await TestServer.start()
        let ws = server.defaultWorkspace.id
        let app = try await server.createApp(in: ws)
        try await server.store.write { db in
            for i in 0...RedirectHandlers.componentLimit {
                var link = LinkRecord(id: "lnk_bulk\(i)aaaaaaaaaaaa", workspaceId: ws, appId: app.id, kind: "link", domain: "localhost",
                                      path: "p\(i)", createdAt: 1)
                link.enabled = true
                try link.insert(db)
            }
        }
        let document = try #require(await server.follow("/.well-known/apple-app-site-association", userAgent: nil).json)
        let components = try #require(document["applinks"]?["details"]?.arrayValue?.first?["components"]?.arrayValue)
        #expect(components.last?["/"] == "/*")
        #expect(components.contains { $0["/"] == "/v1/*" && $0["exclude"] == true })
        #expect(components.contains { $0["/"] == "/.well-known/*" && $0["exclude"] == true })
        await server.stop()
    }

    @Test("assetlinks.json lists apps with an Android identity, and is 404 without one")
    func assetLinks() async throws {
        let server = try await TestServer.start()
        let ws = server.defaultWorkspace.id
        #expect(await server.follow("/.well-known/assetlinks.json", userAgent: nil).status == 404)
        let fingerprint = (0..<32).map { _ in "AB" }.joined(separator: ":")
        let app = try await server.admin.post("/v1/apps", CreateAppRequest(
            workspaceId: ws, name: "Droid", teamId: "ABCDE12345", bundleId: "com.example.droid",
            android: AndroidApp(packageName: "com.example.droid", sha256CertFingerprints: [fingerprint.lowercased()])
        )).decoded(App.self, status: 201)
        #expect(app.android?.sha256CertFingerprints == [fingerprint])
        let bad = try await server.admin.post("/v1/apps", CreateAppRequest(workspaceId: ws, name: "X", teamId: "ABCDE12345", bundleId: "com.x.y",
                                                                           android: AndroidApp(packageName: "x", sha256CertFingerprints: ["AB"])))
        #expect(bad.errorField == "android.packageName")
        let response = await server.follow("/.well-known/assetlinks.json", userAgent: nil)
        #expect(response.status == 200)
        let statements = try #require(response.json?.arrayValue)
        #expect(statements.count == 1)
        #expect(statements[0]["target"]?["package_name"] == "com.example.droid")
        #expect(statements[0]["relation"] == ["delegate_permission/common.handle_all_urls"])
        #expect(statements[0]["target"]?["sha256_cert_fingerprints"] == .array([.string(fingerprint)]))
        await server.stop()
    }

    @Test("resolve returns the in-app path and exact metadata, records the open, and hides other workspaces' links",
          arguments: StoreBackend.all)
    func resolve(_ backend: StoreBackend) async throws {
        let server = try await TestServer.start(backend)
        let ws = server.defaultWorkspace.id
        let app = try await server.createApp(in: ws)
        let key = try await server.createKey(.publishable, app: app.id)
        let link = try await server.createLink(#"""
            {"workspaceId":"\#(ws)","path":"promo","appPath":"/promo/42","campaign":"spring",
             "metadata":{"productId":12345678901234567890,"nested":{"list":[1,"two",null,true]}}}
            """#)
        let client = server.client(key.secret)
        let resolved = try await client.post("/v1/resolve", ResolveRequest(url: "https://LOCALHOST/PROMO?utm=x", platform: "ios",
                                                                           installId: "0F1E2D3C-aaaa-bbbb-cccc-000000000001"))
            .decoded(ResolvedLink.self)
        #expect(resolved.linkId == link.id)
        #expect(resolved.appPath == "/promo/42")
        #expect(resolved.campaign == "spring")
        #expect(resolved.metadata?["productId"] == .number(Decimal(string: "12345678901234567890")!))
        #expect(resolved.clickToken.count == 32)
        let raw = try await client.post("/v1/resolve", ResolveRequest(url: "https://localhost/promo", platform: "web"))
        #expect(raw.bodyText.contains(#""productId":12345678901234567890"#), "metadata numbers stay exact on the wire")
        let verified = try SignedClickId.verify(resolved.signedClickId, key: server.services.secrets.clickSigningKey, now: Date()).get()
        #expect(verified.clickToken == resolved.clickToken)
        let opens = try await server.clicks()
        #expect(try opens.map { try $0.string("kind") } == ["open", "open"])
        #expect(try opens[0].optionalString("install_id") == "0f1e2d3c-aaaa-bbbb-cccc-000000000001")

        #expect(try await client.post("/v1/resolve", ResolveRequest(url: "https://localhost/nope", platform: "ios")).errorCode == "link_not_found")
        #expect(try await client.post("/v1/resolve", ResolveRequest(url: "https://localhost/promo", platform: "windows")).errorField == "platform")
        #expect(try await client.post("/v1/resolve", ResolveRequest(url: "not a url", platform: "ios")).errorField == "url")
        _ = try await server.createLink(CreateLinkRequest(workspaceId: ws, path: "past", expiresAt: "2020-01-01T00:00:00Z"))
        #expect(try await client.post("/v1/resolve", ResolveRequest(url: "https://localhost/past", platform: "ios")).status == 410)

        // Another workspace's key sees the link exactly as it sees a missing one.
        let other = try await server.createWorkspace("Other")
        let otherApp = try await server.createApp(in: other.id)
        let otherKey = try await server.createKey(.publishable, app: otherApp.id)
        let hidden = try await server.client(otherKey.secret).post("/v1/resolve", ResolveRequest(url: "https://localhost/promo", platform: "ios"))
        #expect(hidden.status == 404)
        #expect(hidden.errorCode == "link_not_found")
        await server.stop()
    }

    @Test("signed click ids fail when altered, signed with another key, or expired")
    func signedClickIds() throws {
        let key = Array(repeating: UInt8(7), count: 32)
        let id = SignedClickId(clickToken: "t", linkId: "lnk_1", workspaceId: "ws_1", expiresAt: 2_000_000_000)
        let text = id.signed(with: key)
        #expect(try SignedClickId.verify(text, key: key, now: Date(timeIntervalSince1970: 1_900_000_000)).get() == id)
        #expect(SignedClickId.verify(text, key: Array(repeating: 8, count: 32), now: Date(timeIntervalSince1970: 0)) == .failure(.badSignature))
        #expect(SignedClickId.verify(text, key: key, now: Date(timeIntervalSince1970: 2_000_000_001)) == .failure(.expired))
        var tampered = Array(text)
        tampered[3] = tampered[3] == "A" ? "B" : "A"
        #expect(SignedClickId.verify(String(tampered), key: key, now: Date(timeIntervalSince1970: 0)) == .failure(.badSignature))
        #expect(SignedClickId.verify("garbage", key: key, now: Date()) == .failure(.malformed))
    }

    @Test("a share is a link that remembers who shared it and works like any other")
    func shares() async throws {
        let server = try await TestServer.start()
        let app = try await server.createApp(in: server.defaultWorkspace.id)
        let key = try await server.createKey(.publishable, app: app.id)
        // A publishable key cannot publish a preview of its own; the share shows the app's link to the same place.
        let forged = try await server.client(key.secret).post("/v1/shares", CreateShareRequest(
            installId: "abc-123", appPath: "/recipe/9", preview: LinkPreview(title: "Free money", imageUrl: "https://evil.example/x.png")))
        #expect(forged.status == 403 && forged.errorField == "preview")
        _ = try await server.createLink(CreateLinkRequest(workspaceId: server.defaultWorkspace.id, appId: app.id, appPath: "/recipe/9",
                                                                         preview: LinkPreview(title: "My recipe")))
        let share = try await server.client(key.secret).post("/v1/shares", CreateShareRequest(installId: "abc-123", appPath: "/recipe/9"))
            .decoded(Share.self, status: 201)
        #expect(share.path.count == 8)
        #expect(share.url == "http://localhost/\(share.path)")
        let link = try await server.admin.get("/v1/links/\(share.linkId)").decoded(Link.self)
        #expect(link.kind == "share")
        #expect(link.referrerInstallId == "abc-123")
        #expect(link.appId == app.id)
        #expect(link.preview?.title == "My recipe")
        #expect(await server.follow("/\(share.path)", userAgent: UserAgents.iPhone).headers["Location"] == "https://apps.apple.com/app/id123456789")
        #expect(try await server.client(key.secret).post("/v1/shares", CreateShareRequest(installId: "abc-123", appPath: "recipe")).errorField == "appPath")
        await server.stop()
    }

    @Test("referral codes: readable, one per installation or user, found again in any case, private to their workspace")
    func referralCodes() async throws {
        let server = try await TestServer.start()
        let app = try await server.createApp(in: server.defaultWorkspace.id)
        let client = server.client(try await server.createKey(.publishable, app: app.id).secret)
        let first = try await client.post("/v1/referral-codes", CreateReferralCodeRequest(installId: "inst-1")).decoded(ReferralCode.self, status: 201)
        #expect(first.code.count == 8)
        #expect(first.code.allSatisfy { ClientLinkHandlers.referralAlphabet.contains($0) })
        let again = try await client.post("/v1/referral-codes", CreateReferralCodeRequest(installId: "inst-1")).decoded(ReferralCode.self, status: 200)
        #expect(again == first)
        let user = try await client.post("/v1/referral-codes", CreateReferralCodeRequest(installId: "inst-1", userId: "user-9")).decoded(ReferralCode.self, status: 201)
        #expect(user.code != first.code)
        #expect(user.userId == "user-9")
        #expect(await client.post("/v1/referral-codes", json: "{}").errorCode == "missing_field")
        // Anyone holds a publishable key: a lookup says the code is this app's, never whose it is.
        let found = await client.get("/v1/referral-codes/\(first.code.lowercased())")
        #expect(try found.decoded(ReferralCode.self) == ReferralCode(code: first.code, appId: app.id, installId: nil, userId: nil, createdAt: first.createdAt))
        #expect(!found.bodyText.contains("inst-1") && !found.bodyText.contains("installId"))
        let ofUser = await client.get("/v1/referral-codes/\(user.code)")
        #expect(!ofUser.bodyText.contains("user-9"))
        #expect(try await server.admin.get("/v1/referral-codes/\(first.code)").decoded(ReferralCode.self) == first)
        let other = try await server.createWorkspace("Other")
        let otherKey = try await server.createKey(.server, workspace: other.id)
        #expect(await server.client(otherKey.secret).get("/v1/referral-codes/\(first.code)").status == 404)
        await server.stop()
    }

    @Test("QR codes come as SVG and PNG with checked options")
    func qrCodes() async throws {
        let server = try await TestServer.start()
        let link = try await server.createLink(CreateLinkRequest(workspaceId: server.defaultWorkspace.id, path: "qr"))
        let svg = await server.admin.get("/v1/links/\(link.id)/qr.svg?size=300&margin=2&ecc=h")
        #expect(svg.status == 200)
        #expect(svg.headers["Content-Type"] == "image/svg+xml")
        #expect(svg.bodyText.hasPrefix("<svg") && svg.bodyText.contains("width=\"300\""))
        let png = await server.admin.get("/v1/links/\(link.id)/qr.png")
        #expect(png.headers["Content-Type"] == "image/png")
        #expect(Array(png.body.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        #expect(await server.admin.get("/v1/links/\(link.id)/qr.png?size=10").errorCode == "invalid_query")
        #expect(await server.admin.get("/v1/links/\(link.id)/qr.png?ecc=Z").errorCode == "invalid_query")
        await server.stop()
    }
}
