import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import LinkRunwayAds
import Testing

/// LinkRunwayAds against a stubbed server and a recording AdAttributionKit: what it asks, when it asks nothing, and
/// the calls it makes on Apple's impression.
@Suite("Publisher ads")
struct PublisherAdsTests {
    @Test("prepareAd asks for the placement's impression with the publishable key and makes Apple's AppImpression of its JWS")
    func preparesAnAd() async throws {
        let server = StubServer { _ in AdsFixture.signed() }
        let framework = FakeAppImpressions()
        let ads = AdsFixture.ads(server, framework: framework)
        await ads.setConsent(true)
        let ad = try #require(try await ads.prepareAd(placementId: AdsFixture.placement))
        let request = try #require(server.requests.first)
        #expect(server.paths() == ["POST /v1/ad-placements/\(AdsFixture.placement)/impressions"])
        #expect(request.headers["authorization"] == "Bearer \(Fixture.key)")
        #expect(request.headers["user-agent"] == "LinkRunwayAds/\(LinkRunwayAds.version)")
        #expect(request.raw?.isEmpty ?? true, "the app sends nothing but the placement it names")
        #expect(framework.jwsSeen.withLock { $0 } == [ad.impression.jws])
        #expect(ad.impression.advertisedItemId == 525463029 && ad.impression.sourceIdentifier == 5239 && ad.impression.publisherItemId == 1234567890)
        #expect(ad.impression.reengagementURL == URL(string: "https://go.example.com/promo/summer"))
        #expect(ad.impression.signedAt == Date(timeIntervalSince1970: 1_790_000_000.123))
        #expect(framework.calls.isEmpty, "nothing is recorded before the ad shows")
    }

    @Test("a view and a tap reach Apple in the app's order: beginView, the tap with the re-engagement URL, endView; once per ad")
    func viewsAndTaps() async throws {
        let server = StubServer { _ in AdsFixture.signed() }
        let framework = FakeAppImpressions()
        let ads = AdsFixture.ads(server, framework: framework)
        await ads.setConsent(true)
        let ad = try #require(try await ads.prepareAd(placementId: AdsFixture.placement))
        try await ad.adDisappeared()
        #expect(framework.calls.isEmpty, "an ad that never appeared ends nothing")
        try await ad.adAppeared()
        try await ad.adAppeared()
        try await ad.adTapped()
        try await ad.adDisappeared()
        try await ad.adDisappeared()
        #expect(framework.calls == ["beginView", "handleTap(https://go.example.com/promo/summer)", "endView"])
        // Apple wants a new impression for every showing.
        let again = await thrown { try await ad.adAppeared() }
        #expect(again as? LinkRunwayAdsError == .adAlreadyShown)
        #expect(framework.calls.count == 3)

        // Without a re-engagement URL the tap is handleTap().
        server.answer { _ in AdsFixture.signed(reengagementUrl: nil) }
        let plain = try #require(try await ads.prepareAd(placementId: AdsFixture.placement))
        try await plain.adTapped()
        #expect(framework.calls.last == "handleTap()")
    }

    @Test("a view Apple refused to begin ends nothing, and may begin again; Apple's refusal reaches the app")
    func refusedBegin() async throws {
        let server = StubServer { _ in AdsFixture.signed() }
        let framework = FakeAppImpressions(failing: ["beginView"])
        let ads = AdsFixture.ads(server, framework: framework)
        await ads.setConsent(true)
        let ad = try #require(try await ads.prepareAd(placementId: AdsFixture.placement))
        #expect(await thrown { try await ad.adAppeared() } is FakeAppImpressions.Refused)
        try await ad.adDisappeared()
        #expect(framework.calls.isEmpty)
        framework.fail("beginView", false)
        try await ad.adAppeared()
        try await ad.adDisappeared()
        #expect(framework.calls == ["beginView", "endView"])
        // A tap Apple cannot validate (no UIEventAttributionView under it) throws to the app.
        framework.fail("handleTap(https://go.example.com/promo/summer)", true)
        #expect(await thrown { try await ad.adTapped() } is FakeAppImpressions.Refused)
    }

    @Test("an ad that disappears while Apple is still beginning its view is ended after the view began, not before")
    func callsKeepTheirOrder() async throws {
        let server = StubServer { _ in AdsFixture.signed() }
        let framework = FakeAppImpressions(beginOpen: false)
        let ads = AdsFixture.ads(server, framework: framework)
        await ads.setConsent(true)
        let ad = try #require(try await ads.prepareAd(placementId: AdsFixture.placement))
        let appearing = Task { try await ad.adAppeared() }
        for _ in 0..<2500 { if await ad.phase == .viewing { break }; try await Task.sleep(nanoseconds: 2_000_000) }
        let disappearing = Task { try await ad.adDisappeared() }
        try await Task.sleep(nanoseconds: 50_000_000)
        #expect(framework.calls.isEmpty, "endView waits for beginView")
        framework.beginGate.set(true)
        try await appearing.value
        try await disappearing.value
        #expect(framework.calls == ["beginView", "endView"])
    }

    @Test("without consent nothing is asked and nothing is returned; an answer that arrives after a withdrawal is discarded")
    func consentGates() async throws {
        let release = Locked(false)
        let server = StubServer { _ in AdsFixture.signed() }
        let framework = FakeAppImpressions()
        let ads = AdsFixture.ads(server, framework: framework)
        #expect(try await ads.prepareAd(placementId: AdsFixture.placement) == nil)
        #expect(try await ads.impression(placementId: AdsFixture.placement) == nil)
        #expect(server.requests.isEmpty)
        await ads.setConsent(true)
        server.answer { _ in AdsFixture.signed().held(by: release) }
        let late = Task { try await ads.prepareAd(placementId: AdsFixture.placement) }
        try await Fixture.waitForRequests(server)
        await ads.setConsent(false)
        await ads.setConsent(true)
        release.set(true)
        #expect(try await late.value == nil, "given again in between, consent does not revive the answer")
        #expect(framework.jwsSeen.withLock { $0 }.isEmpty, "Apple was never handed it")
        await ads.setConsent(false)
        #expect(try await ads.impression(placementId: AdsFixture.placement) == nil)
        #expect(server.requests.count == 1)
    }

    @Test("where the device takes no app impressions, prepareAd asks nothing; impression(placementId:) still fetches one")
    func unsupportedDevices() async throws {
        for framework in [FakeAppImpressions(isSupported: false), nil] {
            let server = StubServer { _ in AdsFixture.signed() }
            let ads = AdsFixture.ads(server, framework: framework)
            await ads.setConsent(true)
            #expect(try await ads.prepareAd(placementId: AdsFixture.placement) == nil)
            #expect(server.requests.isEmpty)
            #expect(try await ads.impression(placementId: AdsFixture.placement)?.impressionId == "7aa9f8cc-5689-4c02-b963-22ca22136015")
            let refused = await thrown { _ = try await ads.prepareAd(placementId: "plc_../keys") }
            #expect(refused as? LinkRunwayAdsError == .invalidPlacementId("plc_../keys"), "a wrong id is said so here too")
        }
    }

    @Test("a wrong key or endpoint, and anything but a placement id, are refused before a request")
    func refusedBeforeSending() async throws {
        let server = StubServer { _ in AdsFixture.signed() }
        for ads in [AdsFixture.ads(server, key: "lr_sk_" + String(repeating: "a", count: 48)),
                    AdsFixture.ads(server, endpoint: URL(string: "http://\(server.host)")!)] {
            await ads.setConsent(true)
            let refused = await thrown { _ = try await ads.prepareAd(placementId: AdsFixture.placement) }
            guard case LinkRunwayAdsError.invalidConfiguration? = refused as? LinkRunwayAdsError else {
                Issue.record("expected invalidConfiguration, got \(String(describing: refused))")
                continue
            }
        }
        let ads = AdsFixture.ads(server)
        await ads.setConsent(true)
        for id in ["", "plc_", "plc_../../v1/keys", "plc_abc/def12345", "lnk_3kD9xQ2mLp8RzW4n", "plc_3kD9xQ2m%2F8RzW4n"] {
            let refused = await thrown { _ = try await ads.prepareAd(placementId: id) }
            #expect(refused as? LinkRunwayAdsError == .invalidPlacementId(id), "\(id)")
        }
        #expect(server.requests.isEmpty)
    }

    @Test("the server's refusal, an answer for another placement, and Apple refusing the JWS reach the app as errors")
    func failures() async throws {
        let server = StubServer { _ in .init(status: 404, json: #"{"error":{"code":"not_found","message":"no placement for this app"}}"#) }
        let framework = FakeAppImpressions()
        let ads = AdsFixture.ads(server, framework: framework)
        await ads.setConsent(true)
        let missing = await thrown { _ = try await ads.prepareAd(placementId: AdsFixture.placement) }
        guard case LinkRunwayAdsError.server(let status, let body)? = missing as? LinkRunwayAdsError else {
            Issue.record("expected the server's 404, got \(String(describing: missing))")
            return
        }
        #expect(status == 404 && body.contains("not_found"))
        server.answer { _ in .init(status: 429, json: #"{"error":{"code":"rate_limited"}}"#, headers: ["Retry-After": "3"]) }
        _ = await thrown { _ = try await ads.prepareAd(placementId: AdsFixture.placement) }
        #expect(server.requests.count == 2, "not retried: the ad shows now or not at all")
        server.answer { _ in AdsFixture.signed("plc_someoneelse0000") }
        #expect(await thrown { _ = try await ads.prepareAd(placementId: AdsFixture.placement) } as? LinkRunwayAdsError == .unreadableResponse)
        server.answer { _ in .init(status: 201, json: #"{"placementId":"\#(AdsFixture.placement)"}"#) }
        #expect(await thrown { _ = try await ads.prepareAd(placementId: AdsFixture.placement) } as? LinkRunwayAdsError == .unreadableResponse)
        server.answer { _ in .failure(.notConnectedToInternet) }
        #expect((await thrown { _ = try await ads.prepareAd(placementId: AdsFixture.placement) } as? URLError)?.code == .notConnectedToInternet)
        let refusing = FakeAppImpressions(refusesJWS: true)
        server.answer { _ in AdsFixture.signed() }
        let strict = AdsFixture.ads(server, framework: refusing)
        await strict.setConsent(true)
        #expect(await thrown { _ = try await strict.prepareAd(placementId: AdsFixture.placement) } is FakeAppImpressions.Refused)
        #expect(framework.jwsSeen.withLock { $0 }.isEmpty)
    }
}
