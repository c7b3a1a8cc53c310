// Compiled on its own too, with ClientClassifier.swift, by scripts/fuzz.sh: these read what every click sends.

/// The first language of an Accept-Language header, matched in place (no copy of the header).
enum AcceptLanguage {
    /// Whether the header's first tag is `tag` (lower-case bytes) or one of its subtags (`en` for `en-GB`).
    static func first(_ header: String?, is tag: [UInt8]) -> Bool {
        guard let header = header?.utf8 else { return false }
        var index = header.startIndex
        while index < header.endIndex, header[index] == 0x20 || header[index] == 0x09 { index = header.index(after: index) }
        var matched = 0
        while index < header.endIndex {
            let byte = header[index]
            if byte == 0x2c || byte == 0x3b || byte == 0x20 { break }  // , ; space end the first tag
            guard matched < tag.count else { return byte == 0x2d }  // longer: a subtag of `tag` only after a hyphen
            let lower = byte >= 0x41 && byte <= 0x5a ? byte | 0x20 : byte
            if lower != tag[matched] { return false }
            matched += 1
            index = header.index(after: index)
        }
        return matched == tag.count
    }
}

/// The kind of device, from the User-Agent alone. iPadOS's Safari asks for desktop pages and says it is a Mac, so
/// those iPads are desktops here: telling them apart would take more than the request says.
enum DeviceClass: UInt8, Sendable {
    // In the order of LinkCondition.deviceValues.
    case phone = 0, tablet, desktop, tv

    static let tvNeedles = ["smart-tv", "smarttv", "googletv", "appletv", "crkey", "hbbtv", "android tv"].map { Array($0.utf8) }
    static let mobileNeedle = Array("mobi".utf8)
    static let tabletNeedles = ["ipad", "tablet"].map { Array($0.utf8) }
    static let phoneNeedles = ["iphone", "ipod"].map { Array($0.utf8) }

    init(userAgent: String?, client: ClientClass) {
        guard var userAgent, !userAgent.isEmpty else {
            self = .desktop
            return
        }
        // Searched in place, without a lower-cased copy: a User-Agent is a native string, so its bytes are contiguous.
        self = userAgent.withUTF8 { bytes in
            let text = UnsafeBufferPointer(rebasing: bytes.prefix(1024))
            func has(_ needles: [[UInt8]]) -> Bool { needles.contains { Self.contains($0, in: text) } }
            if has(Self.tvNeedles) { return .tv }
            if has(Self.tabletNeedles) { return .tablet }
            if has(Self.phoneNeedles) { return .phone }
            // Android phones' browsers say Mobile; tablets' do not.
            if case .android = client { return has([Self.mobileNeedle]) ? .phone : .tablet }
            return has([Self.mobileNeedle]) ? .phone : .desktop
        }
    }

    /// Whether `text` contains `needle` (lower-case) without regard to ASCII case.
    static func contains(_ needle: [UInt8], in text: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !needle.isEmpty, text.count >= needle.count else { return false }
        var start = 0
        while start <= text.count - needle.count {
            var matched = 0
            while matched < needle.count {
                let byte = text[start + matched]
                if (byte >= 0x41 && byte <= 0x5a ? byte | 0x20 : byte) != needle[matched] { break }
                matched += 1
            }
            if matched == needle.count { return true }
            start += 1
        }
        return false
    }
}
