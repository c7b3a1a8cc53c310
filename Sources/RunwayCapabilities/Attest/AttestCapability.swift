import RunwayHTTP
import RunwayKit
import RunwayStore

/// App Attest: challenges, attested keys, assertions and the tokens that mark requests attested.
package struct AttestCapability: Capability {
    package init() {}

    package var migrations: [Migration] { AttestSchema.migrations }

    package func routes(_ services: ServerServices) -> [Route] {
        services.metrics.declareCounter("linkrunway_unattested_total", help: "Requests kept out of attribution because an app requires attestation, by kind.")
        let handlers = AttestHandlers(services: services)
        return [
            Route(.POST, "/v1/attest/apple/challenge", .attestChallenge, use: handlers.challenge),
            Route(.POST, "/v1/attest/apple/register", .attestRegister, use: handlers.register),
            Route(.POST, "/v1/attest/apple/assert", .attestAssert, use: handlers.assert),
        ]
    }

    package func forget(_ install: InstallReference, _ db: any SQLExecutor) throws -> [String: Int] {
        ["attestKeys": try AttestQueries.deleteKeys(db, appId: install.appId, installId: install.installId)]
    }
}
