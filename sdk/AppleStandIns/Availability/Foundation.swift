// What the availability check (../availability.sh) needs of Foundation, for Apple targets, where the toolchain here has
// no Foundation: the types the stand-in modules and the SDK's adapters and Platform.swift name, with no behaviour.
// Only the `-typecheck` of that script reads this; nothing is built from it for Linux or for a device.

open class NSObject {
    public init() {}
}

public protocol LocalizedError: Error {}

/// Bytes: what `Data(value.utf8)` and `String(decoding:as:)` need.
public struct Data: Sendable, Hashable, RandomAccessCollection {
    private var bytes: [UInt8] = []
    public init() {}
    public init<S: Sequence>(_ elements: S) where S.Element == UInt8 { bytes = Array(elements) }
    public var startIndex: Int { bytes.startIndex }
    public var endIndex: Int { bytes.endIndex }
    public subscript(position: Int) -> UInt8 { bytes[position] }
}

public struct URL: Sendable, Hashable {
    public var pathExtension: String { "" }
}

open class Bundle: NSObject {
    open class var main: Bundle { Bundle() }
    open var bundleURL: URL { URL() }
}

public struct Date: Sendable, Hashable {
    public init() {}
}

public struct URLError: Error {
    public enum Code: Sendable { case unsupportedURL }
    public init(_ code: Code) {}
}

public struct OperatingSystemVersion: Sendable {
    public var majorVersion: Int
    public var minorVersion: Int
    public var patchVersion: Int
}

open class ProcessInfo: NSObject {
    open class var processInfo: ProcessInfo { ProcessInfo() }
    open var operatingSystemVersion: OperatingSystemVersion { OperatingSystemVersion(majorVersion: 0, minorVersion: 0, patchVersion: 0) }
    @available(iOS 14.0, macOS 11.0, tvOS 14.0, *)
    open var isiOSAppOnMac: Bool { false }
}

public struct Locale: Sendable {
    public static var preferredLanguages: [String] { [] }
}
