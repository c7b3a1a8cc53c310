import Foundation
@testable import LinkRunway
import Testing

/// The quick start of docs/sdk.md, run against a stubbed server; and a check that the page shows what runs here.
@Suite("Quick start")
struct QuickStartTests {
    struct User {
        let id: String
    }

    /// The app's own navigation: remembers where it was sent.
    final class Router: @unchecked Sendable {
        var shown: [String] = []
        func show(_ path: String) { shown.append(path) }
    }

    @Test("the quick start runs and makes the documented requests, in order")
    func quickStart() async throws {
        let server = StubServer(Fixture.standard)
        let log = ConversionLog()
        let runway = Fixture.runway(server, frameworks: log.frameworks, adServices: FakeAdServices(token: "aa-token"), appAttest: FakeAppAttest())
        let appID = "app_1"
        let user = User(id: "u-42")
        let router = Router()

        // BEGIN quick start
        // After your own consent flow:
        await runway.setConsent(true)

        // On every launch; each call works only while it has work left.
        await runway.attest(appId: appID)                          // only if the app requires App Attest
        _ = try? await runway.configureConversions(appId: appID)   // before the first event
        if let match = try? await runway.matchInstall(), match.matched, let path = match.path {
            router.show(path)   // your own allow-listed routes
        }
        try await runway.install()                                 // INSTALL, once per installation
        _ = try? await runway.submitAdServicesToken()              // Apple Ads, once

        // Later:
        try await runway.track(type: "SIGNUP", userId: user.id)
        try await runway.track(type: "CUSTOM", name: "level_10", eventId: "level-10-\(user.id)")
        await runway.recordConversion(event: "PURCHASE", amount: 4999)   // a purchase your backend reported
        let binding = try await runway.bindAffiliate(refCode: "ALICE")  // then .appAccountToken(binding!.appAccountToken)
        // END quick start

        #expect(server.paths() == [
            "POST /v1/attest/apple/challenge", "POST /v1/attest/apple/register", "GET /v1/mobile/config/app_1", "POST /v1/installs/match",
            "POST /v1/events", "POST /v1/claims/apple-ads", "POST /v1/events", "POST /v1/events", "POST /v1/app-store/bind",
        ])
        let installId = try #require(await runway.installId())
        let events = server.events
        #expect(events.map { $0["type"] as? String } == ["INSTALL", "SIGNUP", "CUSTOM"])
        #expect(events.allSatisfy { $0["installId"] as? String == installId && $0["attestation"] as? String == "att-token" })
        #expect(events.allSatisfy { $0["clickToken"] as? String == "clk-1" }, "the matched click goes with every event")
        #expect(events[safe: 1]?["userId"] as? String == "u-42")
        #expect(events[safe: 2]?["name"] as? String == "level_10" && events[safe: 2]?["eventId"] as? String == "level-10-u-42")
        #expect(server.requests(to: "/v1/claims/apple-ads").first?.body?["token"] as? String == "aa-token")
        #expect(server.requests(to: "/v1/app-store/bind").first?.body?["refCode"] as? String == "ALICE")
        #expect(binding?.appAccountToken == UUID(uuidString: Fixture.boundToken))
        #expect(log.all.map(\.fine) == [0, 0, 10, 10], "INSTALL and SIGNUP set values; no rule covers PURCHASE")
        #expect(router.shown == ["/welcome"], "the matched link's path is routed")
    }

    @Test("docs/sdk.md's Quick start block contains the sequence this file runs, in order and contiguously")
    func docsShowWhatRuns() throws {
        let here = URL(fileURLWithPath: #filePath)
        func lines(_ text: String) -> [String] {
            text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        }
        let source = lines(try String(contentsOf: here, encoding: .utf8))
        let begin = try #require(source.firstIndex(of: "// BEGIN quick start"))
        let end = try #require(source.firstIndex(of: "// END quick start"))
        let tested = source[(begin + 1)..<end].filter { !$0.isEmpty }
        #expect(tested.count == 15)

        let docsURL = here.deletingLastPathComponent().appendingPathComponent("../../../docs/sdk.md").standardized
        let docs = lines(try String(contentsOf: docsURL, encoding: .utf8))
        let section = try #require(docs.firstIndex(of: "## Quick start"), "docs/sdk.md has no \"## Quick start\" section")
        let sectionEnd = docs[(section + 1)...].firstIndex { $0.hasPrefix("## ") } ?? docs.endIndex
        let open = try #require(docs[section..<sectionEnd].firstIndex { $0.hasPrefix("```swift") }, "no swift block in the Quick start section")
        let close = try #require(docs[(open + 1)...].firstIndex { $0.hasPrefix("```") })
        let block = docs[(open + 1)..<close].filter { !$0.isEmpty }
        let found = block.count >= tested.count && (0...(block.count - tested.count)).contains { start in
            Array(block[start..<(start + tested.count)]) == Array(tested)
        }
        #expect(found, "the Quick start block of docs/sdk.md does not contain the tested lines contiguously:\n\(tested.joined(separator: "\n"))")
    }
}
