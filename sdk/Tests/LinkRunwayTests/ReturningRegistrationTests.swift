import Foundation
@testable import LinkRunway
import Synchronization
import Testing

/// Consent given again without a `matchInstall()` (1.0.1): the SDK registers the returning install id itself before
/// the first call the server refuses for an unknown id, and decides "returning" from every report that may have
/// reached the server, not the match alone.
@Suite("Returning install registered by the SDK")
struct ReturningRegistrationTests {
    /// Like the real server: events, Apple Ads claims and binds of an install id that no match or INSTALL event
    /// registered are refused with 404 unknown_install. A returning match is answered unmatched.
    static func strictServer(offline: Locked<Bool> = Locked(false)) -> StubServer {
        let known = Locked<Set<String>>([])
        return StubServer { request in
            if offline.value { return .failure(.notConnectedToInternet) }
            let installId = request.body?["installId"] as? String ?? ""
            switch request.path {
            case "/v1/installs/match":
                known.withLock { _ = $0.insert(installId) }
                return request.body?["returning"] as? Bool == true ? Fixture.unmatched : Fixture.matched()
            case "/v1/events" where request.body?["type"] as? String == "INSTALL":
                known.withLock { _ = $0.insert(installId) }
                return Fixture.standard(request)
            case "/v1/events", "/v1/claims/apple-ads", "/v1/app-store/bind", "/v1/app-store/bind/deferred":
                guard known.value.contains(installId) else {
                    return .init(status: 404, json: #"{"error":{"code":"unknown_install","message":"install \#(installId) has not been matched or installed"}}"#)
                }
                return Fixture.standard(request)
            default:
                return Fixture.standard(request)
            }
        }
    }

    static func matches(_ server: StubServer, of installId: String?) -> [[String: Any]] {
        server.requests(to: "/v1/installs/match").compactMap(\.body).filter { $0["installId"] as? String == installId }
    }

    @Test("after withdrawal and new consent, track with no matchInstall() registers the new id as returning first, and the event is stored")
    func trackRegistersFirst() async throws {
        let server = Self.strictServer()
        let runway = Fixture.runway(server)
        await runway.setConsent(true)
        _ = try await runway.matchInstall()
        try await runway.install()
        await ReconsentTests.reconsent(runway)
        let newId = try #require(await runway.installId())
        let receipt = try await runway.track(type: "LOGIN", eventId: "login-1")
        #expect(receipt == EventReceipt(eventId: "login-1", status: "stored"))
        let registration = Self.matches(server, of: newId)
        #expect(registration.count == 1 && registration.first?["returning"] as? Bool == true)
        #expect(server.paths().suffix(2) == ["POST /v1/installs/match", "POST /v1/events"], "the match comes before the event")
        #expect(await runway.outbox.isEmpty)
        // The registration is the match: the app's own call later returns it without a request.
        #expect(try await runway.matchInstall()?.method == .unmatched)
        #expect(Self.matches(server, of: newId).count == 1)
    }

    @Test("concurrent calls after new consent (two events, an Apple Ads claim never made, a bind) share one registration")
    func concurrentCallersShareOne() async throws {
        let offline = Locked(true)
        let server = Self.strictServer(offline: offline)
        let runway = Fixture.runway(server, adServices: FakeAdServices(token: "tok"))
        await runway.setConsent(true)
        _ = try? await runway.matchInstall()  // a timeout would count; offline does not, so INSTALL below decides
        offline.set(false)
        try await runway.install()
        await ReconsentTests.reconsent(runway)
        let newId = try #require(await runway.installId())
        async let first = runway.track(type: "LOGIN")
        async let second = runway.track(type: "CUSTOM", name: "level_2")
        async let claim = runway.submitAdServicesToken()
        async let binding = runway.bindAffiliate(refCode: "ALICE")
        let results = try await (first, second, claim, binding)
        #expect(results.0?.status == "stored" && results.1?.status == "stored")
        #expect(results.2?.status == "attributed" && results.3?.offerCode == "ALICE20")
        let registration = Self.matches(server, of: newId)
        #expect(registration.count == 1 && registration.first?["returning"] as? Bool == true)
    }

    @Test("when the registration cannot be sent, track throws and the event stays on the device; it is delivered after a later registration")
    func failedRegistrationKeepsEvents() async throws {
        let offline = Locked(false)
        let server = Self.strictServer(offline: offline)
        let runway = Fixture.runway(server)
        await runway.setConsent(true)
        try await runway.install()
        await ReconsentTests.reconsent(runway)
        offline.set(true)
        let error = await thrown { try await runway.track(type: "LOGIN", eventId: "login-1") }
        #expect((error as? URLError)?.code == .notConnectedToInternet)
        #expect(await runway.outbox.map(\.eventId) == ["login-1"])
        offline.set(false)
        #expect(await runway.sendPendingEvents() == 0)
        let newId = try #require(await runway.installId())
        #expect(server.events.last?["eventId"] as? String == "login-1" && server.events.last?["installId"] as? String == newId)
        #expect(Self.matches(server, of: newId).last?["returning"] as? Bool == true)
    }

    @Test("an Apple Ads claim never made before a withdrawal is made for the new id after registering it")
    func unsentClaimRegistersFirst() async throws {
        let server = Self.strictServer()
        let runway = Fixture.runway(server, adServices: FakeAdServices(token: "tok"))
        await runway.setConsent(true)
        try await runway.install()
        await ReconsentTests.reconsent(runway)
        let newId = try #require(await runway.installId())
        #expect(try await runway.submitAdServicesToken()?.status == "attributed")
        #expect(server.paths().suffix(2) == ["POST /v1/installs/match", "POST /v1/claims/apple-ads"])
        #expect(Self.matches(server, of: newId).first?["returning"] as? Bool == true)
    }

    @Test("each bind after new consent works without a matchInstall()", arguments: ["signedClickId", "refCode", "deferred"])
    func bindsRegisterFirst(_ kind: String) async throws {
        let server = Self.strictServer()
        let runway = Fixture.runway(server)
        await runway.setConsent(true)
        try await runway.install()
        await ReconsentTests.reconsent(runway)
        let binding: AffiliateBinding?
        switch kind {
        case "signedClickId": binding = try await runway.bindAffiliate(signedClickId: "signed")
        case "refCode": binding = try await runway.bindAffiliate(refCode: "ALICE")
        default: binding = try await runway.bindAffiliateDeferred(surfaceId: "srf_1")
        }
        #expect(binding?.offerCode == "ALICE20")
        #expect(Self.matches(server, of: await runway.installId()).count == 1)
    }

    @Test("a first installation is not registered by the SDK: track sends no match of its own")
    func firstInstallationNotRegistered() async throws {
        let server = Self.strictServer()
        let runway = Fixture.runway(server)
        await runway.setConsent(true)
        try await runway.install()
        #expect(try await runway.track(type: "SIGNUP")?.status == "stored")
        #expect(server.requests(to: "/v1/installs/match").isEmpty)
    }

    @Test("forgetInstallation right after new consent deletes on the server without registering the id first")
    func forgetNeedsNoRegistration() async throws {
        let server = Self.strictServer()
        let runway = Fixture.runway(server)
        await runway.setConsent(true)
        try await runway.install()
        await ReconsentTests.reconsent(runway)
        let newId = try #require(await runway.installId())
        try await runway.forgetInstallation()
        #expect(server.paths().last == "POST /v1/installs/\(newId)/forget")
        #expect(server.requests(to: "/v1/installs/match").isEmpty)
        #expect(await runway.installId() == nil)
    }

    @Test("two concurrent events that the server refuses both return their error (the second does not wait on a delivery that is over)")
    func concurrentRefusedEventsReturn() async throws {
        let server = Self.strictServer()
        let runway = Fixture.runway(server)
        await runway.setConsent(true)
        async let first = thrown { try await runway.track(type: "LOGIN") }
        async let second = thrown { try await runway.track(type: "CUSTOM", name: "level_2") }
        let errors = await [first, second]
        #expect(errors.allSatisfy { ($0 as? LinkRunwayError).map { "\($0)".contains("unknown_install") } == true })
        #expect(await runway.outbox.isEmpty)
    }

    // MARK: What makes the next id returning

    @Test("INSTALL sent (no match ever asked), then new consent: the match says returning and carries no appTransactionId")
    func installAloneMakesReturning() async throws {
        let server = StubServer(Fixture.standard)
        let runway = Fixture.runway(server, appTransaction: FakeAppTransaction(id: "atx-1"))
        await runway.setConsent(true)
        try await runway.install()
        await ReconsentTests.reconsent(runway)
        _ = try await runway.matchInstall()
        let match = try #require(server.requests(to: "/v1/installs/match").last?.body)
        #expect(match["returning"] as? Bool == true && match["appTransactionId"] == nil)
    }

    @Test("an Apple Ads claim alone (no match, no INSTALL), then new consent: the match says returning")
    func claimAloneMakesReturning() async throws {
        let server = StubServer(Fixture.standard)
        let runway = Fixture.runway(server, adServices: FakeAdServices(token: "tok"))
        await runway.setConsent(true)
        _ = try await runway.submitAdServicesToken()
        await ReconsentTests.reconsent(runway)
        _ = try await runway.matchInstall()
        #expect(server.requests(to: "/v1/installs/match").last?.body?["returning"] as? Bool == true)
    }

    @Test("on the first id, install() before matchInstall() does not make that match returning")
    func ownInstallDoesNotMakeReturning() async throws {
        let server = StubServer(Fixture.standard)
        let runway = Fixture.runway(server, appTransaction: FakeAppTransaction(id: "atx-1"))
        await runway.setConsent(true)
        try await runway.install()
        _ = try await runway.matchInstall()
        let match = try #require(server.requests(to: "/v1/installs/match").last?.body)
        #expect(match["returning"] == nil && match["appTransactionId"] as? String == "atx-1")
    }

    @Test("an INSTALL on its way when consent is withdrawn counts as reported: the next id is returning and sends no INSTALL")
    func installInFlightCounts() async throws {
        let release = Locked(false)
        let server = StubServer { request in
            request.path == "/v1/events" && !release.value ? Fixture.ack(request).held(by: release) : Fixture.standard(request)
        }
        let runway = Fixture.runway(server)
        await runway.setConsent(true)
        let install = Task { try await runway.install() }
        try await Fixture.waitForRequests(server)
        await ReconsentTests.reconsent(runway)
        release.set(true)
        _ = try? await install.value
        try await runway.install()
        _ = try await runway.matchInstall()
        #expect(server.events.filter { $0["type"] as? String == "INSTALL" }.count == 1)
        #expect(server.requests(to: "/v1/installs/match").last?.body?["returning"] as? Bool == true)
    }
}
