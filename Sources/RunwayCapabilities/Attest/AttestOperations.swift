import LinkRunwayAPI
import RunwayHTTP
import RunwayKit

/// What the OpenAPI document says about each App Attest route.
extension Operation {
    static let attestChallenge = Operation(
        id: "attestChallenge", summary: "A one-time App Attest challenge: five minutes for an assertion, an hour for an attestation", tag: "App Attest",
        access: Access.client, responses: [.json(201, AttestChallenge.self, "The challenge.")], errors: [409, 429], rateLimited: true)

    static let attestRegister = Operation(
        id: "attestRegister", summary: "Register a key with its App Attest attestation; returns an attestation token",
        tag: "App Attest", access: Access.client, requestSchema: .of(AttestRegisterRequest.self),
        responses: [.json(201, AttestationGrant.self, "The key is registered.")], maxBodyBytes: 128 * 1024, errors: [409], rateLimited: true)

    static let attestAssert = Operation(
        id: "attestAssert", summary: "Prove again with a registered key; returns a fresh attestation token",
        tag: "App Attest", access: Access.client, requestSchema: .of(AttestAssertRequest.self),
        responses: [.json(200, AttestationGrant.self, "Verified.")], maxBodyBytes: 16 * 1024, errors: [404, 409], rateLimited: true)
}
