import RunwayHTTP
import RunwayKit

/// Consent withdrawal and deletion of an installation, and the export of everything stored about one: each capability
/// (of `owners`) forgets and exports its own rows.
package struct PrivacyCapability: Capability {
    let owners: [any Capability]

    /// `owners`: every other capability, whose rows deletion and export go through.
    package init(owners: [any Capability]) { self.owners = owners }

    package func routes(_ services: ServerServices) -> [Route] {
        let handlers = PrivacyHandlers(services: services, owners: owners)
        return [
            Route(.POST, "/v1/installs/{installId}/forget", .forgetInstall, use: handlers.forget),
            Route(.DELETE, "/v1/installs/{installId}", .deleteInstall, use: handlers.delete),
            Route(.GET, "/v1/installs/{installId}/export", .exportInstall, use: handlers.export),
        ]
    }
}
