import LinkRunwayAPI
import RunwayHTTP
import RunwayKit

/// What the OpenAPI document says about the privacy routes.
extension Operation {
    static let forgetInstall = Operation(
        id: "forgetInstall", summary: "Consent withdrawn: delete everything stored about this installation of the key's app",
        tag: "Installs", access: Access.client, responses: [.json(200, DeletionReceipt.self, "What was deleted.")], errors: [403], rateLimited: true)

    static let deleteInstall = Operation(
        id: "deleteInstall", summary: "Delete everything stored about an installation", tag: "Installs", access: Access.management,
        responses: [.json(200, DeletionReceipt.self, "What was deleted.")],
        query: [QueryParameterDoc("appId", "The app (required when the id is known in several of the workspace's apps).")])

    static let exportInstall = Operation(
        id: "exportInstall", summary: "Everything stored about an installation", tag: "Installs", access: Access.management,
        responses: [.json(200, InstallExport.self, "The installation's data.")],
        query: [QueryParameterDoc("appId", "The app (required when the id is known in several of the workspace's apps).")])
}
