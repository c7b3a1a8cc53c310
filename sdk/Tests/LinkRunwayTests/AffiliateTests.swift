import Foundation
@testable import LinkRunway
import Testing

/// Affiliate binds, shares and referral codes.
@Suite("Affiliates, shares and codes")
struct AffiliateTests {
    enum Bind: String, CaseIterable, Sendable {
        case signedClickId, refCode, surfaceId

        func call(_ runway: LinkRunway) async throws -> AffiliateBinding? {
            switch self {
            case .signedClickId: try await runway.bindAffiliate(signedClickId: "payload.sig")
            case .refCode: try await runway.bindAffiliate(refCode: "ALICE")
            case .surfaceId: try await runway.bindAffiliateDeferred(surfaceId: "sfc_1")
            }
        }

        var path: String { self == .surfaceId ? "/v1/app-store/bind/deferred" : "/v1/app-store/bind" }
        var value: String { switch self { case .signedClickId: "payload.sig"; case .refCode: "ALICE"; case .surfaceId: "sfc_1" } }
    }

    @Test("each bind posts its field with the install id (and the attestation token once cached) and returns the appAccountToken and offer code",
          arguments: Bind.allCases)
    func bindBodies(bind: Bind) async throws {
        let server = StubServer(Fixture.standard)
        let runway = Fixture.runway(server, appAttest: FakeAppAttest())
        await runway.setConsent(true)
        let binding = try await bind.call(runway)
        #expect(binding == AffiliateBinding(appAccountToken: UUID(uuidString: "6D1F7BD8-5E3A-4E39-9A7A-0F6E1F5C2B11")!, offerCode: "ALICE20"))
        #expect(server.paths() == ["POST \(bind.path)"])
        let body = try #require(server.requests.first?.body)
        #expect(Set(body.keys) == [bind.rawValue, "installId"])
        #expect(body[bind.rawValue] as? String == bind.value)
        let currentId = await runway.installId()
        #expect(body["installId"] as? String == currentId)

        await runway.attest(appId: "app_1")
        _ = try await bind.call(runway)
        let attested = try #require(server.requests.last)
        #expect(attested.path == bind.path)
        #expect(Set(attested.body?.keys.map { $0 } ?? []) == [bind.rawValue, "installId", "attestation"])
        #expect(attested.body?["attestation"] as? String == "att-token")
    }

    @Test("createShare posts installId, appPath and metadata to /v1/shares and returns the link")
    func createShare() async throws {
        let server = StubServer(Fixture.standard)
        let runway = Fixture.runway(server)
        await runway.setConsent(true)
        let share = try await runway.createShare(appPath: "/recipes/42", metadata: ["campaign": "spring"])
        #expect(share == Share(linkId: "lnk_s", url: "https://go.example/s/abc"))
        #expect(server.paths() == ["POST /v1/shares"])
        let body = try #require(server.requests.first?.body)
        #expect(Set(body.keys) == ["installId", "appPath", "metadata"])
        let currentId = await runway.installId()
        #expect(body["installId"] as? String == currentId)
        #expect(body["appPath"] as? String == "/recipes/42")
        #expect(body["metadata"] as? [String: String] == ["campaign": "spring"])
    }

    @Test("createReferralCode posts installId and userId to /v1/referral-codes and returns the code")
    func createReferralCode() async throws {
        let server = StubServer(Fixture.standard)
        let runway = Fixture.runway(server)
        await runway.setConsent(true)
        #expect(try await runway.createReferralCode(userId: "u-1") == ReferralCode(code: "ALICE7"))
        #expect(server.paths() == ["POST /v1/referral-codes"])
        let body = try #require(server.requests.first?.body)
        #expect(Set(body.keys) == ["installId", "userId"])
        let currentId = await runway.installId()
        #expect(body["installId"] as? String == currentId && body["userId"] as? String == "u-1")
    }
}
