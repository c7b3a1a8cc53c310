import LinkRunwayAPI
import RunwayHTTP
import RunwayKit

extension Operation {
    static let setAppStoreKey = Operation(
        id: "setAppStoreKey", summary: "Set the app's In-App Purchase key for the App Store Server API (stored sealed, never returned)",
        tag: "App Store replay", access: Access.management, requestSchema: .of(SetAppStoreKeyRequest.self),
        responses: [.json(200, AppStoreKeyStatus.self, "Which key the app now has.")], maxBodyBytes: 8 * 1024)

    static let getAppStoreKey = Operation(
        id: "getAppStoreKey", summary: "Whether the app has an In-App Purchase key, its key id and issuer id", tag: "App Store replay",
        access: Access.management, responses: [.json(200, AppStoreKeyStatus.self, "The key's ids, never the key.")])

    static let deleteAppStoreKey = Operation(
        id: "deleteAppStoreKey", summary: "Remove the app's In-App Purchase key", tag: "App Store replay", access: Access.management,
        responses: [ResponseDoc(status: 204, description: "Removed (or there was none).")])

    static let replayAppStoreNotifications = Operation(
        id: "replayAppStoreNotifications",
        summary: "Fetch one page of the notifications Apple sent in a span (Get Notification History) and process each as if it had just arrived; ones already processed are duplicates",
        tag: "App Store replay", access: Access.management, requestSchema: .of(ReplayNotificationsRequest.self),
        responses: [.json(200, NotificationReplayPage.self, "What the page held and what became of it.")], maxBodyBytes: 4 * 1024,
        errors: [409, 502], idempotent: true)

    static let requestAppStoreTestNotification = Operation(
        id: "requestAppStoreTestNotification",
        summary: "Ask Apple for a TEST notification with the app's In-App Purchase key (Request a Test Notification, then Get Test Notification Status) and process it at the app's production surface, which proves the app's App Store id",
        tag: "App Store replay", access: Access.management,
        responses: [.json(200, AppStoreTestNotificationResult.self, "The test and the App Store id's proof after it.")],
        errors: [400, 409, 502])
}
