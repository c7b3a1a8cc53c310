import Foundation
import RunwayJSON

/// What the App Store sends to a `Get Retention Message` endpoint when a subscriber views a subscription they may
/// cancel: `{"signedPayload": <JWS>}`, signed as App Store Server Notifications are, whose payload is a
/// `DecodedRealtimeRequestBody`
/// (https://developer.apple.com/documentation/retentionmessaging/decodedrealtimerequestbody). Every field is required
/// there; `environment` and `signedDate` came with version 1.1 of the API.
public struct RetentionRealtimeRequest: Sendable, Equatable {
    public var originalTransactionId: String
    public var appAppleId: Int64
    public var productId: String
    /// Apple's locale code, as `en-US`.
    public var userLocale: String
    public var requestIdentifier: String
    /// `Production` or `Sandbox`.
    public var environment: String
    /// Milliseconds since 1970.
    public var signedDate: Int64

    /// Nil when a field is missing, has the wrong type, or is longer than any Apple sends.
    public init?(_ payload: JSONValue) {
        guard let original = payload["originalTransactionId"].flatMap(AppStoreValues.text), Self.bounded(original, 64),
              let appAppleId = AppStoreValues.wholeNumber(payload["appAppleId"]), appAppleId > 0,
              let productId = payload["productId"]?.stringValue, Self.bounded(productId, 200),
              let locale = payload["userLocale"]?.stringValue, Self.bounded(locale, 35),
              let request = payload["requestIdentifier"]?.stringValue, Self.bounded(request, 64),
              let environment = payload["environment"]?.stringValue, Self.bounded(environment, 32),
              let signedDate = AppStoreValues.milliseconds(payload["signedDate"]) else { return nil }
        originalTransactionId = original
        self.appAppleId = appAppleId
        self.productId = productId
        userLocale = locale
        requestIdentifier = request
        self.environment = environment
        self.signedDate = signedDate
    }

    private static func bounded(_ text: String, _ limit: Int) -> Bool { !text.isEmpty && text.utf8.count <= limit }
}

extension AppStoreVerifier {
    /// A realtime request for the app `appAppleId` in `environment`, checked as Apple's libraries check one: the
    /// signature and chain, then the App Store id (in production; sandbox requests may name another), then the
    /// environment. Apple's own advice is not to answer a request whose `appAppleId` is not the app's.
    public func verifyRetentionRequest(_ text: String, appAppleId: Int64?, environment: Environment,
                                       now: Date = Date()) -> Result<RetentionRealtimeRequest, Failure> {
        switch verify(text, environment: environment, now: now) {
        case .failure(let failure): return .failure(failure)
        case .success(let verified):
            guard let request = RetentionRealtimeRequest(verified.payload) else {
                return .failure(.invalidFormat("the payload is not a DecodedRealtimeRequestBody"))
            }
            guard environment != .production || request.appAppleId == appAppleId else {
                return .failure(.invalidAppIdentifier("the request is for App Store id \(request.appAppleId)"))
            }
            guard request.environment == environment.rawValue else {
                return .failure(.invalidEnvironment("the request is from \(request.environment), not \(environment.rawValue)"))
            }
            return .success(request)
        }
    }
}
