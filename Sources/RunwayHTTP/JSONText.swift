import RunwayJSON

/// Small helpers to write JSON text without an encoder.
enum JSONText {
    static func appendString(_ s: String, to out: inout String) { JSONValue.writeString(s, into: &out) }
}
