import RunwayHTTP
import RunwayStore

/// App Attest: challenges, attested keys, assertions and the tokens that mark requests attested.
struct AttestCapability: Capability {
    var migrations: [Migration] { AttestSchema.migrations }

    func routes(_ services: ServerServices) -> [Route] { AttestRoutes.routes(services) }

    func forget(_ install: InstallReference, _ db: any SQLExecutor) throws -> [String: Int] {
        ["attestKeys": try db.execute("DELETE FROM attest_keys WHERE app_id = \(install.appId) AND install_id = \(install.installId)")]
    }
}
