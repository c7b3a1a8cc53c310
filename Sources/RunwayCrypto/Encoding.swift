/// Hex and base64url text encodings of bytes.
public enum ByteEncoding {
    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Lower-case hex.
    /// The first `count` bytes in lower-case hex, written straight into the string.
    public static func hex(_ bytes: [UInt8], count: Int) -> String {
        let count = min(count, bytes.count)
        return String(unsafeUninitializedCapacity: count * 2) { out in
            for i in 0..<count {
                out[2 * i] = hexDigits[Int(bytes[i] >> 4)]
                out[2 * i + 1] = hexDigits[Int(bytes[i] & 0x0f)]
            }
            return count * 2
        }
    }

    public static func hex(_ bytes: [UInt8]) -> String {
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(hexDigits[Int(b >> 4)])
            out.append(hexDigits[Int(b & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Bytes from hex (either case); nil when malformed.
    public static func fromHex(_ text: String) -> [UInt8]? {
        let chars = Array(text.utf8)
        guard chars.count % 2 == 0 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(chars.count / 2)
        var i = 0
        while i < chars.count {
            guard let hi = nibble(chars[i]), let lo = nibble(chars[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        return out
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

extension ByteEncoding {
    /// Base64url without padding (RFC 4648 §5), as JWS uses.
    public static func base64url(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var out = [UInt8]()
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i + 3 <= bytes.count {
            let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
            out += [alphabet[Int(n >> 18)], alphabet[Int((n >> 12) & 63)], alphabet[Int((n >> 6) & 63)], alphabet[Int(n & 63)]]
            i += 3
        }
        let rest = bytes.count - i
        if rest == 1 {
            let n = UInt32(bytes[i]) << 16
            out += [alphabet[Int(n >> 18)], alphabet[Int((n >> 12) & 63)]]
        } else if rest == 2 {
            let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8
            out += [alphabet[Int(n >> 18)], alphabet[Int((n >> 12) & 63)], alphabet[Int((n >> 6) & 63)]]
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Bytes from standard base64 (RFC 4648 §4, padding optional); nil for any other character.
    public static func fromBase64(_ text: String) -> [UInt8]? { decode(text, plus: 62, slash: 63, minus: nil, underscore: nil) }

    /// Bytes from base64url (padding optional); nil for any other character or an impossible length.
    public static func fromBase64url(_ text: String) -> [UInt8]? { decode(text, plus: nil, slash: nil, minus: 62, underscore: 63) }

    /// One decoder for both alphabets: the values the four punctuation characters stand for (nil: not allowed).
    private static func decode(_ text: String, plus: UInt32?, slash: UInt32?, minus: UInt32?, underscore: UInt32?) -> [UInt8]? {
        var values: [UInt32] = []
        values.reserveCapacity(text.utf8.count)
        var padding = 0
        for c in text.utf8 {
            if c == UInt8(ascii: "=") { padding += 1; continue }
            guard padding == 0 else { return nil }
            let value: UInt32?
            switch c {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = UInt32(c - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = UInt32(c - UInt8(ascii: "a") + 26)
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = UInt32(c - UInt8(ascii: "0") + 52)
            case UInt8(ascii: "+"): value = plus
            case UInt8(ascii: "/"): value = slash
            case UInt8(ascii: "-"): value = minus
            case UInt8(ascii: "_"): value = underscore
            default: value = nil
            }
            guard let value else { return nil }
            values.append(value)
        }
        guard values.count % 4 != 1, padding <= 2 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(values.count * 3 / 4)
        var i = 0
        while i + 4 <= values.count {
            let n = values[i] << 18 | values[i + 1] << 12 | values[i + 2] << 6 | values[i + 3]
            out += [UInt8(n >> 16), UInt8((n >> 8) & 0xff), UInt8(n & 0xff)]
            i += 4
        }
        let rest = values.count - i
        if rest == 2 {
            out.append(UInt8((values[i] << 18 | values[i + 1] << 12) >> 16))
        } else if rest == 3 {
            let n = values[i] << 18 | values[i + 1] << 12 | values[i + 2] << 6
            out += [UInt8(n >> 16), UInt8((n >> 8) & 0xff)]
        }
        return out
    }
}
