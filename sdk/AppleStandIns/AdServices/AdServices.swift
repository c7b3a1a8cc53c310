// A stand-in for Apple's AdServices, for type-checking only: the symbol LinkRunway's adapter uses, as documented on
// the page named above it. The body never runs.
import Foundation

/// https://developer.apple.com/documentation/adservices/aaattribution
@available(iOS 14.3, macOS 11.1, visionOS 1.0, *)
@available(tvOS, unavailable)
open class AAAttribution: NSObject {
    /// https://developer.apple.com/documentation/adservices/aaattribution/attributiontoken()
    open class func attributionToken() throws -> String { throw URLError(.unsupportedURL) }
}
