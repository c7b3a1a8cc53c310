import CQREncode

/// A QR code symbol: a square of dark and light modules, encoded by libqrencode.
public struct QRCode: Sendable, Equatable {
    public enum Correction: String, Sendable, CaseIterable {
        case low = "L", medium = "M", quartile = "Q", high = "H"

        var level: QRecLevel {
            switch self {
            case .low: return QR_ECLEVEL_L
            case .medium: return QR_ECLEVEL_M
            case .quartile: return QR_ECLEVEL_Q
            case .high: return QR_ECLEVEL_H
            }
        }
    }

    /// Modules per side.
    public let size: Int
    /// Row-major; true is dark.
    public let modules: [Bool]

    public struct EncodingError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Encodes `text` as bytes (8-bit mode) at the smallest version that fits.
    public init(text: String, correction: Correction = .medium) throws {
        guard !text.isEmpty else { throw EncodingError(description: "nothing to encode") }
        let bytes = Array(text.utf8)
        guard let symbol = bytes.withUnsafeBufferPointer({ QRcode_encodeData(Int32($0.count), $0.baseAddress, 0, correction.level) }) else {
            throw EncodingError(description: "the text is too long for a QR code")
        }
        defer { QRcode_free(symbol) }
        let width = Int(symbol.pointee.width)
        size = width
        modules = (0..<(width * width)).map { symbol.pointee.data[$0] & 1 == 1 }
    }

    public func isDark(x: Int, y: Int) -> Bool { modules[y * size + x] }
}
