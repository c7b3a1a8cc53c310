// A stand-in for Apple's DeviceCheck, for type-checking only: exactly the App Attest symbols LinkRunway's adapter uses
// (the asynchronous forms), as documented on the page named above each. Bodies never run.
import Foundation

/// https://developer.apple.com/documentation/devicecheck/dcappattestservice (declared `class DCAppAttestService`
/// there, with no `Sendable`: the stand-in claims none either, so the adapter cannot come to rely on one).
@available(iOS 14.0, macOS 11.0, tvOS 15.0, watchOS 9.0, visionOS 1.0, *)
open class DCAppAttestService: NSObject {
    /// https://developer.apple.com/documentation/devicecheck/dcappattestservice/shared
    open class var shared: DCAppAttestService { DCAppAttestService() }

    /// https://developer.apple.com/documentation/devicecheck/dcappattestservice/issupported
    open var isSupported: Bool { false }

    /// The asynchronous form on https://developer.apple.com/documentation/devicecheck/dcappattestservice/generatekey(completionhandler:)
    open func generateKey() async throws -> String { throw DCError(.featureUnsupported) }

    /// The asynchronous form on https://developer.apple.com/documentation/devicecheck/dcappattestservice/attestkey(_:clientdatahash:completionhandler:)
    open func attestKey(_ keyId: String, clientDataHash: Data) async throws -> Data { throw DCError(.featureUnsupported) }

    /// The asynchronous form on https://developer.apple.com/documentation/devicecheck/dcappattestservice/generateassertion(_:clientdatahash:completionhandler:)
    open func generateAssertion(_ keyId: String, clientDataHash: Data) async throws -> Data { throw DCError(.featureUnsupported) }
}

/// https://developer.apple.com/documentation/devicecheck/dcerror-swift.struct
@available(iOS 11.0, macOS 10.15, tvOS 11.0, watchOS 9.0, visionOS 1.0, *)
public struct DCError: Error, Sendable {
    /// https://developer.apple.com/documentation/devicecheck/dcerror-swift.struct/code (raw values in the order of
    /// Apple's Objective-C enumeration).
    public enum Code: Int, Sendable {
        /// https://developer.apple.com/documentation/devicecheck/dcerror-swift.struct/code/unknownsystemfailure
        case unknownSystemFailure = 0
        /// https://developer.apple.com/documentation/devicecheck/dcerror-swift.struct/code/featureunsupported
        case featureUnsupported = 1
        /// https://developer.apple.com/documentation/devicecheck/dcerror-swift.struct/code/invalidinput
        case invalidInput = 2
        /// https://developer.apple.com/documentation/devicecheck/dcerror-swift.struct/code/invalidkey
        case invalidKey = 3
        /// https://developer.apple.com/documentation/devicecheck/dcerror-swift.struct/code/serverunavailable
        case serverUnavailable = 4
    }

    /// The error's code, as on https://developer.apple.com/documentation/devicecheck/dcerror-swift.struct (the `code`
    /// Swift gives every error struct bridged from an `NSError` domain, typed `DCError.Code`).
    public let code: DCError.Code

    /// Only the stand-in makes one; the system makes Apple's.
    init(_ code: DCError.Code) { self.code = code }
}
