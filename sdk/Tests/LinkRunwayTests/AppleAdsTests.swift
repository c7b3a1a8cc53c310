import Foundation
@testable import LinkRunway
import Synchronization
import Testing

/// The Apple Ads claim: the AdServices token posted once per installation.
@Suite("Apple Ads")
struct AppleAdsTests {
    static let pending = StubServer.Reply(status: 202, json: #"{"installId":"i","status":"pending","testData":false}"#)
    static let attributed = StubServer.Reply(status: 200, json: #"{"installId":"i","status":"attributed","attribution":{"campaignId":"42","adGroupId":"7","keywordId":"9"},"testData":false}"#)

    /// A server answering the claims in turn (the last answer repeats).
    static func server(_ replies: [StubServer.Reply]) -> StubServer {
        let queue = Mutex(replies)
        return StubServer { _ in queue.withLock { $0.count > 1 ? $0.removeFirst() : $0[0] } }
    }

    @Test("the AdServices token is posted with the install id to POST /v1/claims/apple-ads and the claim returned")
    func claimRequest() async throws {
        let server = Self.server([Self.attributed])
        let runway = Fixture.runway(server, adServices: FakeAdServices(token: "aa-token-1"))
        await runway.setConsent(true)
        let claim = try await runway.submitAdServicesToken()
        #expect(claim == AppleAdsClaim(status: "attributed", campaignId: "42", adGroupId: "7", keywordId: "9"))
        #expect(server.paths() == ["POST /v1/claims/apple-ads"])
        let body = try #require(server.requests.first?.body)
        #expect(Set(body.keys) == ["installId", "token"])
        let currentId = await runway.installId()
        #expect(body["token"] as? String == "aa-token-1" && body["installId"] as? String == currentId)
    }

    @Test("a 202 is retried at most three times, five seconds apart unless the server's retryAfter says otherwise (capped at 30 s)")
    func pendingRetried() async throws {
        let clock = TestClock()
        let server = Self.server([Self.pending])
        let runway = Fixture.runway(server, clock: clock, adServices: FakeAdServices(token: "tok"))
        await runway.setConsent(true)
        #expect(try await runway.submitAdServicesToken()?.status == "pending")
        #expect(server.requests.count == 4, "one try and three retries")
        #expect(clock.slept == [5, 5, 5])

        let paced = TestClock()
        let answering = Self.server([
            .init(status: 202, json: #"{"installId":"i","status":"pending","retryAfter":12,"testData":false}"#),
            .init(status: 202, json: #"{"installId":"i","status":"pending","retryAfter":90,"testData":false}"#),
            Self.attributed,
        ])
        let other = Fixture.runway(answering, clock: paced, adServices: FakeAdServices(token: "tok"))
        await other.setConsent(true)
        #expect(try await other.submitAdServicesToken()?.campaignId == "42")
        #expect(answering.requests.count == 3)
        #expect(paced.slept == [12, 30])
    }

    @Test("a token call that hangs is given up after appleCallTimeout without holding the SDK; a later call claims")
    func hangingToken() async throws {
        let server = Self.server([Self.attributed])
        let adServices = HangingAdServices()
        let runway = Fixture.runway(server, adServices: adServices, appleCallTimeout: 1)
        await runway.setConsent(true)
        let claim = Task { try await runway.submitAdServicesToken() }
        for _ in 0..<500 where adServices.calls.withLock({ $0 }) == 0 { try await Task.sleep(nanoseconds: 2_000_000) }
        // While Apple's call hangs, the SDK's actor is free: an event goes out.
        let receipt = try await runway.track(type: "SIGNUP", eventId: "evt-during")
        #expect(receipt?.eventId == "evt-during")
        #expect(try await claim.value == nil, "no token within the deadline: no claim")
        #expect(!server.paths().contains("POST /v1/claims/apple-ads"))
        adServices.release.signal()
        #expect(try await runway.submitAdServicesToken()?.status == "attributed")
        #expect(server.paths().filter { $0 == "POST /v1/claims/apple-ads" }.count == 1)
    }

    @Test("another failure throws, and a later call posts again")
    func failureLeavesClaimOpen() async throws {
        let server = Self.server([.init(status: 400, json: #"{"error":{"code":"invalid_token"}}"#), Self.attributed])
        let runway = Fixture.runway(server, adServices: FakeAdServices(token: "tok"))
        await runway.setConsent(true)
        await #expect(throws: LinkRunwayError.server(status: 400, body: #"{"error":{"code":"invalid_token"}}"#)) {
            try await runway.submitAdServicesToken()
        }
        #expect(try await runway.submitAdServicesToken()?.status == "attributed")
        #expect(server.requests.count == 2)
    }

    @Test("after a final answer later calls, in this launch or a later one, send nothing")
    func finalAnswerOnce() async throws {
        let server = Self.server([.init(status: 200, json: #"{"installId":"i","status":"not_attributed","testData":false}"#)])
        let suite = Fixture.suite()
        let runway = Fixture.runway(server, adServices: FakeAdServices(token: "tok"), suite: suite)
        await runway.setConsent(true)
        #expect(try await runway.submitAdServicesToken()?.status == "not_attributed")
        #expect(try await runway.submitAdServicesToken() == nil)
        #expect(try await Fixture.runway(server, adServices: FakeAdServices(token: "tok"), suite: suite).submitAdServicesToken() == nil)
        #expect(server.requests.count == 1)
    }

    @Test("without an AdServices provider the call returns nil and sends nothing")
    func noProvider() async throws {
        let server = Self.server([Self.attributed])
        let runway = Fixture.runway(server)
        await runway.setConsent(true)
        #expect(try await runway.submitAdServicesToken() == nil)
        #expect(server.requests.isEmpty)
    }
}
