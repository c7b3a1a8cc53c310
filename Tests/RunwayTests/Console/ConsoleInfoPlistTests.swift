import Foundation
import LinkRunwayAPI
import RunwayHTTP
import RunwayTestKit
import Testing

/// The console's Info.plist page: the keys the server writes, and the check of a pasted Info.plist.
@Suite("Console Info.plist")
struct ConsoleInfoPlistTests {
    @Test("the page shows the app's keys, escaped; a pasted Info.plist is checked, with its mistakes listed or a clean verdict")
    func infoPlistPage() async throws {
        let (server, visitor, csrf, ws) = try await ConsoleTests.signedIn()
        let app = try await server.admin.post("/v1/apps", CreateAppRequest(workspaceId: ws, name: "Ads", teamId: "ABCDE12345", bundleId: "com.example.ads"))
            .decoded(App.self, status: 201)
        _ = try await server.admin.post("/v1/ad-networks", CreateAdNetworkRequest(workspaceId: ws, adNetworkId: "example123.skadnetwork"))
            .decoded(AdNetwork.self, status: 201)
        let page = await visitor.send("GET", "/console/info-plist?ws=\(ws)&app=\(app.id)")
        #expect(page.status == 200)
        #expect(page.bodyText.contains("&lt;key&gt;AdNetworkIdentifiers&lt;/key&gt;") && page.bodyText.contains("example123.skadnetwork"))
        #expect(!page.bodyText.contains("<key>"), "the property list is shown as text, never as markup")

        let fragment = try await server.admin.get("/v1/apps/\(app.id)/info-plist").decoded(InfoPlistFragment.self)
        let clean = await visitor.send("POST", "/console/info-plist", form: [("csrf", csrf), ("ws", ws), ("app", app.id), ("plist", fragment.plist)])
        #expect(clean.status == 200 && clean.bodyText.contains("follow Apple's rules"), "\(clean.bodyText)")
        let mistaken = fragment.plist.replacingOccurrences(of: "example123.skadnetwork", with: "Example123.SKAdNetwork")
        let flagged = await visitor.send("POST", "/console/info-plist", form: [("csrf", csrf), ("ws", ws), ("app", app.id), ("plist", mistaken)])
        #expect(flagged.bodyText.contains("<code>AdNetworkIdentifiers.0</code>") && flagged.bodyText.contains("upper-case"))
        #expect(flagged.bodyText.contains("Example123.SKAdNetwork</textarea>") == false && flagged.bodyText.contains("&lt;string&gt;Example123.SKAdNetwork"),
                "what was pasted stays in the box, escaped")
        let empty = await visitor.send("POST", "/console/info-plist", form: [("csrf", csrf), ("ws", ws), ("app", app.id), ("plist", "")])
        #expect(empty.status == 400 && empty.bodyText.contains(#"id="plist-error""#))
        await server.stop()
    }
}
