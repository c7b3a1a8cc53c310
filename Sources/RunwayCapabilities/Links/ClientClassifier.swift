// Compiled on its own too, with AutomatedClients.swift, by scripts/fuzz.sh, where the kit is not a module.
#if canImport(RunwayKit)
import RunwayKit
#endif

/// What kind of client followed a link, from its User-Agent only (no other signal, no fingerprint).
enum ClientClass: Sendable, Equatable {
    /// A link preview or a bot (`AutomatedClients`), named by its token; never counted as a click.
    case crawler(String)
    case ios(osVersion: String?)
    case android(osVersion: String?)
    case desktop

    var platform: String {
        switch self {
        case .crawler: return "crawler"
        case .ios: return "ios"
        case .android: return "android"
        case .desktop: return "desktop"
        }
    }

    var osVersion: String? {
        switch self {
        case .ios(let v), .android(let v): return v
        default: return nil
        }
    }

    /// A token to search for, as lower-case bytes.
    typealias Needle = (token: String, bytes: [UInt8])

    /// The built-in tokens of previews and bots (`AutomatedClients`) as bytes, made once.
    static let crawlerNeedles = needles(AutomatedClients.builtIn.map(\.pattern))

    static func needles(_ patterns: [AutomatedClientPattern]) -> [Needle] {
        patterns.map { (token: $0.token, bytes: Array($0.token.utf8)) }
    }

    static let appleNeedles = ["iphone", "ipad", "ipod"].map { Array($0.utf8) }
    static let androidNeedle = Array("android".utf8)
    static let iosVersionMarker = Array(" os ".utf8)
    static let androidVersionMarker = Array("android ".utf8)

    /// The class of `userAgent`: `.crawler` with the first of `crawlers` it contains, else its platform.
    init(userAgent: String?, crawlers: [Needle] = crawlerNeedles) {
        guard let userAgent, !userAgent.isEmpty else {
            self = .desktop
            return
        }
        // Byte searches on the lower-cased text: this runs on every click.
        let lower = Array(userAgent.utf8.prefix(1024).map { $0 >= 0x41 && $0 <= 0x5a ? $0 | 0x20 : $0 })
        if let crawler = crawlers.first(where: { Self.find($0.bytes, in: lower) != nil }) {
            self = .crawler(crawler.token)
        } else if Self.appleNeedles.contains(where: { Self.find($0, in: lower) != nil }) {
            self = .ios(osVersion: Self.version(in: lower, after: Self.iosVersionMarker, separator: UInt8(ascii: "_")))
        } else if Self.find(Self.androidNeedle, in: lower) != nil {
            self = .android(osVersion: Self.version(in: lower, after: Self.androidVersionMarker, separator: UInt8(ascii: ".")))
        } else {
            self = .desktop
        }
    }

    /// Where `needle` starts in `haystack`, or nil.
    static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count else { return nil }
        let first = needle[0]
        var i = 0
        while i <= haystack.count - needle.count {
            if haystack[i] == first {
                var j = 1
                while j < needle.count && haystack[i + j] == needle[j] { j += 1 }
                if j == needle.count { return i }
            }
            i += 1
        }
        return nil
    }

    /// `major.minor` after `marker` (`17_4_1` → `17.4`), or nil.
    static func version(in text: [UInt8], after marker: [UInt8], separator: UInt8) -> String? {
        guard let start = find(marker, in: text) else { return nil }
        var parts: [[UInt8]] = [[]]
        for byte in text[(start + marker.count)...] {  // trap-safe: find returns where the whole marker fits in text
            if byte >= 0x30 && byte <= 0x39 {
                parts[parts.count - 1].append(byte)
            } else if byte == separator && parts.count < 2 && !parts[0].isEmpty {
                parts.append([])
            } else {
                break
            }
        }
        guard !parts[0].isEmpty, parts[0].count <= 3 else { return nil }
        let major = String(decoding: parts[0], as: UTF8.self)
        guard parts.count > 1, !parts[1].isEmpty else { return major }
        return major + "." + String(decoding: parts[1].prefix(3), as: UTF8.self)
    }
}
