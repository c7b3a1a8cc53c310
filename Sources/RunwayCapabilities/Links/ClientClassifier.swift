// Compiled on its own too, with AutomatedClients.swift, by scripts/fuzz.sh, where the kit is not a module.
#if canImport(RunwayKit)
import RunwayKit
#endif

/// What kind of client followed a link, from its User-Agent only (no other signal, no fingerprint).
enum ClientClass: Sendable, Equatable {
    /// A link preview or a bot (`AutomatedClients`), named by its token; never counted as a click.
    case crawler(String)
    /// `inApp`: the app whose own browser followed the link (`InAppBrowser`), nil for a browser.
    case ios(osVersion: String?, inApp: InAppBrowser? = nil)
    case android(osVersion: String?, inApp: InAppBrowser? = nil)
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
        case .ios(let v, _), .android(let v, _): return v
        default: return nil
        }
    }

    /// The same class, with the app an Android custom tab's Referer names when the User-Agent named none.
    func referred(by referrer: String?) -> ClientClass {
        guard case .android(let version, nil) = self, let referrer, let app = InAppBrowser.of(androidReferrer: referrer) else { return self }
        return .android(osVersion: version, inApp: app)
    }

    var inAppBrowser: InAppBrowser? {
        switch self {
        case .ios(_, let app), .android(_, let app): return app
        default: return nil
        }
    }

    /// Named tokens searched in a User-Agent, in order: the first of the list found wins.
    struct Tokens: Sendable {
        let tokens: [String]
        let set: NeedleSet

        init(_ tokens: [String]) {
            self.tokens = tokens
            set = NeedleSet(tokens.map { Array($0.utf8) })
        }

        /// The first token of the list that `text` (lower-case bytes) holds.
        func first(in text: [UInt8]) -> String? { set.firstMatch(in: text).map { tokens[$0] } }  // trap-safe: the set's indexes are the list's
    }

    /// The built-in tokens of previews and bots (`AutomatedClients`), made once.
    static let builtInCrawlers = tokens(AutomatedClients.builtIn.map(\.pattern))
    static let clientTools = Tokens(AutomatedClients.clientTools)
    static let machineWords = Tokens(AutomatedClients.machineWords)
    static let peopleWords = AutomatedClients.peopleWords.map { Array($0.utf8) }
    static let contactSignatures = NeedleSet(AutomatedClients.contactSignatures.map { Array($0.utf8) })

    static func tokens(_ patterns: [AutomatedClientPattern]) -> Tokens { Tokens(patterns.map(\.token)) }

    static let appleNeedles = ["iphone", "ipad", "ipod"].map { Array($0.utf8) }
    static let androidNeedle = Array("android".utf8)
    static let iosVersionMarker = Array(" os ".utf8)
    static let safariVersionMarker = Array("version/".utf8)
    static let androidVersionMarker = Array("android ".utf8)
    static let compatibleMarker = Array("compatible;".utf8)
    static let internetExplorerMarkers = ["msie", "trident"].map { Array($0.utf8) }
    static let browserPrefixes = ["mozilla/", "opera/"].map { Array($0.utf8) }

    /// The class of `userAgent`: `.crawler` with the first of `crawlers` it contains, else with the first sign of a
    /// machine (a tool, a machine word, a contact, a non-browser form, none at all), else its platform.
    init(userAgent: String?, crawlers: Tokens = builtInCrawlers) {
        // Byte searches on the lower-cased text: this runs on every click.
        let lower = Array((userAgent ?? "").utf8.prefix(1024).map { $0 >= 0x41 && $0 <= 0x5a ? $0 | 0x20 : $0 })
        if let crawler = crawlers.first(in: lower) ?? Self.unlistedMachine(lower) {
            self = .crawler(crawler)
        } else if Self.appleNeedles.contains(where: { Self.find($0, in: lower) != nil }) {
            self = .ios(osVersion: Self.iosVersion(in: lower), inApp: InAppBrowser.of(lower, android: false))
        } else if Self.find(Self.androidNeedle, in: lower) != nil {
            self = .android(osVersion: Self.version(in: lower, after: Self.androidVersionMarker, separator: UInt8(ascii: ".")),
                            inApp: InAppBrowser.of(lower, android: true))
        } else {
            self = .desktop
        }
    }

    /// The agent of a machine that names nothing on the list, or nil for a browser.
    static func unlistedMachine(_ lower: [UInt8]) -> String? {
        // Leading spaces and quotes (a header copied with them) are not the client's name.
        let name = lower.drop { $0 == 0x20 || $0 == 0x22 || $0 == 0x27 || $0 == 0x09 }
        if name.isEmpty { return AutomatedClients.noUserAgent }
        if let tool = clientTools.first(in: lower) { return tool }
        var words = lower
        for word in peopleWords {
            while let at = find(word, in: words) { words.replaceSubrange(at..<(at + word.count), with: repeatElement(0x20, count: word.count)) }  // trap-safe: find returns where the whole word fits
        }
        if let word = machineWords.first(in: words) { return word }
        if contactSignatures.firstMatch(in: lower) != nil { return AutomatedClients.contactSignature }
        if find(compatibleMarker, in: lower) != nil, !internetExplorerMarkers.contains(where: { find($0, in: lower) != nil }) {
            return AutomatedClients.compatibleSignature
        }
        if !browserPrefixes.contains(where: { name.starts(with: $0) }) { return AutomatedClients.notABrowser }
        return nil
    }

    /// The iOS version: the OS's, except where Safari froze it (from Safari 26 the User-Agent says `18_6` or `18_7`,
    /// and only `Version/` tells the real one). A frozen value with no `Version/` (a web view, another browser) is
    /// unknown, since it may be iOS 18.6 as well as 26.
    static func iosVersion(in lower: [UInt8]) -> String? {
        let reported = version(in: lower, after: iosVersionMarker, separator: UInt8(ascii: "_"))
        guard let reported, reported == "18.6" || reported == "18.7" else { return reported }
        guard let safari = version(in: lower, after: safariVersionMarker, separator: UInt8(ascii: ".")) else { return nil }
        let major = Int(safari.prefix { $0 != "." }) ?? 0
        return major >= 26 ? safari : reported
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

/// Many byte strings searched in one pass over a text: each position looks only at the needles that start with its
/// two bytes, so a few hundred needles cost little more than a few. The needles are kept in flat arrays read through
/// buffer pointers: the search runs on every click, and nested arrays would retain and release at each position.
struct NeedleSet: Sendable {
    /// Every needle's bytes, one after another; needle `i` is `bytes[offsets[i]..<offsets[i + 1]]`.
    private let bytes: [UInt8]
    private let offsets: [Int]
    /// For each pair of first bytes (`first << 8 | second`), the needles that start with it, in list order:
    /// `order[pairStarts[pair]..<pairStarts[pair + 1]]`.
    private let pairStarts: [Int]
    private let order: [Int]
    /// For each byte, the lowest index of a needle that is only that byte, or `Int.max`.
    private let single: [Int]

    init(_ needles: [[UInt8]]) {
        bytes = needles.flatMap { $0 }
        offsets = needles.reduce(into: [0]) { offsets, needle in offsets.append((offsets.last ?? 0) + needle.count) }
        var single = Array(repeating: Int.max, count: 256)
        var buckets = Array(repeating: [Int](), count: 65_536)
        for (index, needle) in needles.enumerated() {
            guard let first = needle.first else { continue }
            if needle.count == 1 {
                single[Int(first)] = min(single[Int(first)], index)  // trap-safe: a byte is below 256
            } else {
                buckets[Int(first) << 8 | Int(needle[1])].append(index)  // trap-safe: two bytes make less than 65,536; the needle has two
            }
        }
        self.single = single
        order = buckets.flatMap { $0 }
        pairStarts = buckets.reduce(into: [0]) { starts, bucket in starts.append((starts.last ?? 0) + bucket.count) }
    }

    /// The lowest index of a needle that `text` holds, or nil.
    func firstMatch(in text: [UInt8]) -> Int? {
        var best = Int.max
        text.withUnsafeBufferPointer { text in
            bytes.withUnsafeBufferPointer { bytes in
                offsets.withUnsafeBufferPointer { offsets in
                    pairStarts.withUnsafeBufferPointer { pairStarts in
                        order.withUnsafeBufferPointer { order in
                            single.withUnsafeBufferPointer { single in
                                for start in text.indices {
                                    let first = Int(text[start])  // trap-safe: start is an index of text
                                    best = min(best, single[first])  // trap-safe: a byte is below 256
                                    guard start + 1 < text.count else { break }
                                    let pair = first << 8 | Int(text[start + 1])  // trap-safe: start + 1 < text.count
                                    // In list order, so the first needle at or past the best ends the look at this position.
                                    for slot in pairStarts[pair]..<pairStarts[pair + 1] {  // trap-safe: pairStarts has 65,537 entries
                                        let index = order[slot]  // trap-safe: the slots of a pair are indexes of order
                                        guard index < best else { break }
                                        let from = offsets[index], count = offsets[index + 1] - from  // trap-safe: offsets has a needle more
                                        guard count <= text.count - start else { continue }
                                        var offset = 2
                                        while offset < count && text[start + offset] == bytes[from + offset] { offset += 1 }  // trap-safe: start + offset < text.count, from + offset < bytes.count
                                        if offset == count { best = index }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return best == Int.max ? nil : best
    }
}
