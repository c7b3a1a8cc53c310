import Foundation
@testable import LinkRunway
import Synchronization
import Testing

/// Consent withdrawn and given again (1.0.0): the new install id is a returning one, every call works, and nothing that
/// reached the server is reported twice.
@Suite("Consent given again")
struct ReconsentTests {
    /// Withdraws consent and gives it again.
    static func reconsent(_ runway: LinkRunway) async {
        await runway.setConsent(false)
        await runway.setConsent(true)
    }

    @Test("after withdrawal and new consent the match sends \"returning\": true and no app transaction; the first match sent no \"returning\" key")
    func returningMatch() async throws {
        let server = StubServer(Fixture.standard)
        let runway = Fixture.runway(server, appTransaction: FakeAppTransaction(id: "atx-1", jws: "signed.atx.1"))
        await runway.setConsent(true)
        _ = try await runway.matchInstall()
        await Self.reconsent(runway)
        let newId = try #require(await runway.installId())
        _ = try await runway.matchInstall()
        let matches = server.requests(to: "/v1/installs/match").compactMap(\.body)
        try #require(matches.count == 2)
        #expect(matches[0]["returning"] == nil)
        #expect(matches[0]["appTransactionId"] as? String == "atx-1")
        #expect(matches[1]["returning"] as? Bool == true)
        #expect(matches[1]["appTransactionId"] == nil && matches[1]["signedAppTransaction"] == nil)
        #expect(matches[0]["signedAppTransaction"] as? String == "signed.atx.1")
        #expect(matches[1]["installId"] as? String == newId && matches[0]["installId"] as? String != newId)
    }

    @Test("after withdrawal and new consent, track works under the new install id and its receipt is returned")
    func trackAfterReconsent() async throws {
        let server = StubServer(Fixture.standard)
        let runway = Fixture.runway(server)
        await runway.setConsent(true)
        _ = try await runway.matchInstall()
        try await runway.install()
        await Self.reconsent(runway)
        _ = try await runway.matchInstall()
        let newId = try #require(await runway.installId())
        let receipt = try await runway.track(type: "SIGNUP", eventId: "evt-2")
        #expect(receipt == EventReceipt(eventId: "evt-2", status: "stored"))
        let event = try #require(server.events.last)
        #expect(event["eventId"] as? String == "evt-2" && event["installId"] as? String == newId)
    }

    @Test("after withdrawal and new consent install() does not send INSTALL again")
    func installNotAgain() async throws {
        let server = StubServer(Fixture.standard)
        let suite = Fixture.suite()
        let runway = Fixture.runway(server, suite: suite)
        await runway.setConsent(true)
        try await runway.install()
        await Self.reconsent(runway)
        try await runway.install()
        // Nor on a later launch.
        try await Fixture.runway(server, suite: suite).install()
        #expect(server.events.map { $0["type"] as? String } == ["INSTALL"])
    }

    @Test("a first match that never reached the server (notConnectedToInternet) leaves matchRequested false: the next identity is not returning")
    func unsentMatchNotReturning() async throws {
        let offline = Mutex(true)
        let server = StubServer { request in
            offline.withLock { $0 } ? .failure(.notConnectedToInternet) : Fixture.standard(request)
        }
        let runway = Fixture.runway(server)
        await runway.setConsent(true)
        let error = await thrown { _ = try await runway.matchInstall() }
        #expect((error as? URLError)?.code == .notConnectedToInternet)
        #expect(await runway.storage.bool(.matchRequested) == false)
        await Self.reconsent(runway)
        offline.withLock { $0 = false }
        _ = try await runway.matchInstall()
        let last = try #require(server.requests(to: "/v1/installs/match").last?.body)
        #expect(last["returning"] == nil)
        #expect(server.requests(to: "/v1/installs/match").count == 4)
    }

    @Test("a first match that timed out may have reached the server: the next identity's match is returning")
    func timedOutMatchReturning() async throws {
        let offline = Mutex(true)
        let server = StubServer { request in
            offline.withLock { $0 } ? .failure(.timedOut) : Fixture.standard(request)
        }
        let runway = Fixture.runway(server)
        await runway.setConsent(true)
        let error = await thrown { _ = try await runway.matchInstall() }
        #expect((error as? URLError)?.code == .timedOut)
        #expect(await runway.storage.bool(.matchRequested) == true)
        await Self.reconsent(runway)
        offline.withLock { $0 = false }
        _ = try await runway.matchInstall()
        let last = try #require(server.requests(to: "/v1/installs/match").last?.body)
        #expect(last["returning"] as? Bool == true)
    }

    @Test("an Apple Ads claim answered 202 before a withdrawal is not claimed again after new consent")
    func pendingClaimNotAgain() async throws {
        let server = StubServer { _ in .init(status: 202, json: #"{"installId":"i","status":"pending","retryAfter":5,"testData":false}"#) }
        let runway = Fixture.runway(server, adServices: FakeAdServices(token: "tok"))
        await runway.setConsent(true)
        #expect(try await runway.submitAdServicesToken()?.status == "pending")
        let sent = server.requests.count
        #expect(sent == 4)
        await Self.reconsent(runway)
        #expect(try await runway.submitAdServicesToken() == nil)
        #expect(server.requests.count == sent)
    }

    @Test("an Apple Ads claim that never reached the server (notConnectedToInternet) is made after withdrawal and new consent")
    func unsentClaimMadeAgain() async throws {
        let offline = Mutex(true)
        let server = StubServer { request in
            offline.withLock { $0 } ? .failure(.notConnectedToInternet) : Fixture.standard(request)
        }
        let runway = Fixture.runway(server, adServices: FakeAdServices(token: "tok"))
        await runway.setConsent(true)
        let error = await thrown { try await runway.submitAdServicesToken() }
        #expect((error as? URLError)?.code == .notConnectedToInternet)
        await Self.reconsent(runway)
        offline.withLock { $0 = false }
        #expect(try await runway.submitAdServicesToken() != nil)
        let newId = try #require(await runway.installId())
        #expect(server.requests(to: "/v1/claims/apple-ads").last?.body?["installId"] as? String == newId)
    }

    /// A failure that proves nothing was sent (notConnectedToInternet) lets the INSTALL go again under the new id; one
    /// after which it may have arrived (timedOut) does not, so the installation is never counted twice.
    @Test("after withdrawal and new consent, an INSTALL that never reached the server is sent under the new id; one that timed out is not",
          arguments: [(URLError.Code.notConnectedToInternet, true), (URLError.Code.timedOut, false)])
    func failedInstallAfterReconsent(_ failure: URLError.Code, sentAgain: Bool) async throws {
        let offline = Mutex(true)
        let server = StubServer { request in
            offline.withLock { $0 } ? .failure(failure) : Fixture.standard(request)
        }
        let runway = Fixture.runway(server)
        await runway.setConsent(true)
        let error = await thrown { try await runway.install() }
        #expect((error as? URLError)?.code == failure)
        #expect(await runway.outbox.first?.mayHaveArrived == !sentAgain)
        await Self.reconsent(runway)
        offline.withLock { $0 = false }
        try await runway.install()
        let newId = try #require(await runway.installId())
        let installs = server.events.filter { $0["type"] as? String == "INSTALL" }
        #expect(installs.count == (sentAgain ? 4 : 3), "three tries that failed, then \(sentAgain ? "one" : "none") under the new identity")
        #expect(installs.contains { $0["installId"] as? String == newId } == sentAgain)
        #expect(await runway.storage.bool(.installReported))
    }
}
