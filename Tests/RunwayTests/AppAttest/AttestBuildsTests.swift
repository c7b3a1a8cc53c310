@testable import AppleFormats
import Foundation
import LinkRunwayAPI
import RunwayCrypto
import RunwayHTTP
import RunwayTestKit
import Testing

/// iOS 27's attestation extensions: the launch validation category and bundle version after the credential's key, read
/// as Apple's server guide describes them, kept with the key, and an app that accepts App Store and TestFlight builds
/// only.
@Suite("App Attest builds")
struct AttestBuildsTests {
    typealias Authority = AppAttestTestAuthority

    @Test("the extensions after the credential's key are read: bytes or an integer; none before iOS 27; unreadable ones are none, never a failure")
    func extensions() throws {
        let authority = Authority()
        let verifier = AppAttestVerifier(root: authority.root)
        let device = authority.deviceKey()
        func attested(_ attestation: [UInt8]) throws -> AppAttestVerifier.Attested {
            try verifier.verifyAttestation(attestation, keyId: device.keyId, clientDataHash: Digest.sha256("c"), appId: Authority.appId, at: Date()).get()
        }
        let store = try attested(authority.attestation(device, challenge: "c", extensions: Authority.launch(category: 4, bundleVersion: "2.7.1")))
        #expect(store.extensions == AppAttestExtensions(validationCategory: 4, bundleVersion: "2.7.1"))
        let integer = try attested(authority.attestation(device, challenge: "c", extensions: Authority.launch(category: 2, bundleVersion: nil, integer: true)))
        #expect(integer.extensions == AppAttestExtensions(validationCategory: 2, bundleVersion: nil))
        #expect(try attested(authority.attestation(device, challenge: "c", publicKey: true)).extensions == nil, "iOS 26 writes the key and nothing after it")
        #expect(try attested(authority.attestation(device, challenge: "c")).extensions == nil)
        #expect(try attested(authority.attestation(device, challenge: "c", extensions: [0xff, 0x00])).extensions == nil, "not CBOR: none")
        let odd = TestCBOR.map([(AppAttestExtensions.categoryKey, .bytes([4, 0, 0])), (AppAttestExtensions.bundleVersionKey, .text(String(repeating: "9", count: 65)))])
        #expect(try attested(authority.attestation(device, challenge: "c", extensions: odd)).extensions == nil, "three bytes and a 65-byte version are not Apple's")
        #expect(try attested(authority.attestation(device, challenge: "c", extensions: TestCBOR.map([("future_extension_01", .text("x"))]))).extensions == nil)
    }

    @Test("the key keeps its build and version; builds=store refuses a development build and lets a device that says nothing through; store_only does not",
          arguments: StoreBackend.all)
    func policy(_ backend: StoreBackend) async throws {
        let authority = Authority()
        let server = try await TestServer.start(backend, appAttestRoot: authority.root)
        let app = try await server.admin.post("/v1/apps", json: #"""
            {"workspaceId":"\#(server.defaultWorkspace.id)","name":"Attested","teamId":"ABCDE12345","bundleId":"com.example.attested",
             "attestation":{"policy":"optional","environments":["production"],"builds":"store"}}
            """#).decoded(App.self, status: 201)
        #expect(app.attestation.builds == "store")
        let client = server.client(try await server.createKey(.publishable, app: app.id).secret)
        func patch(_ json: String) async -> HTTPResponse { await server.admin.send("PATCH", "/v1/apps/\(app.id)", body: Array(json.utf8)) }
        func register(_ challenge: String, category: UInt32?, version: String? = "41") async throws -> HTTPResponse {
            let now = server.services.clock.nowMilliseconds()
            try await server.store.write { db in
                try db.execute("INSERT INTO attest_challenges (app_id, challenge, created_at) VALUES (\(app.id), \(challenge), \(now))")
            }
            let device = authority.deviceKey()
            let launch = category == nil && version == nil ? [] : Authority.launch(category: category, bundleVersion: version)
            let attestation = authority.attestation(device, challenge: challenge, publicKey: true, extensions: launch)
            return await client.post("/v1/attest/apple/register", json: #"""
                {"appId":"\#(app.id)","keyId":"\#(device.keyIdBase64)","attestation":"\#(Data(attestation).base64EncodedString())","challenge":"\#(challenge)"}
                """#)
        }
        let appStore = try await register("b1", category: 4).decoded(AttestationGrant.self, status: 201)
        #expect(appStore.build == "app_store" && appStore.bundleVersion == "41")
        #expect(try await register("b2", category: 2).decoded(AttestationGrant.self, status: 201).build == "testflight")
        let development = try await register("b3", category: 3)
        #expect(development.status == 400 && development.errorCode == "attestation_invalid" && development.bodyText.contains("builds:"))
        #expect(development.bodyText.contains("development"))
        #expect(try await register("b4", category: 77).bodyText.contains("category_77"), "a category Apple adds is named by its number")
        let silent = try await register("b5", category: nil, version: nil).decoded(AttestationGrant.self, status: 201)
        #expect(silent.build == nil && silent.bundleVersion == nil, "an iOS 26 device says nothing and is let through")

        let strict = try await patch(#"{"attestation":{"policy":"optional","environments":["production"],"builds":"store_only"}}"#).decoded(App.self)
        #expect(strict.attestation.builds == "store_only")
        #expect(try await register("b6", category: nil, version: nil).bodyText.contains("did not say"))
        #expect(try await register("b7", category: 4).status == 201)
        let kept = try await patch(#"{"attestation":{"policy":"required","environments":["production"]}}"#).decoded(App.self)
        #expect(kept.attestation.builds == "store_only", "a request without builds keeps the setting")
        #expect(await patch(#"{"attestation":{"policy":"optional","environments":["production"],"builds":"app_store"}}"#).errorField == "attestation.builds")

        let rows = try await server.store.read { db in
            try db.query("SELECT validation_category, bundle_version FROM attest_keys ORDER BY created_at").map {
                "\(try $0.optionalInt("validation_category").map(String.init) ?? "-")/\(try $0.optionalString("bundle_version") ?? "-")"
            }
        }
        #expect(Set(rows) == ["4/41", "2/41", "-/-"] && rows.count == 4, "\(rows)")
        await server.stop()
    }
}
