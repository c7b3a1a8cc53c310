import Foundation

/// A picture drawn at the centre of a QR code: a PNG (decoded and written again by us, so nothing of the upload but
/// its pixels survives) or an SVG rebuilt by `SVGSanitizer`.
public enum QRLogoImage: Sendable, Equatable {
    case png(RGBAImage, encoded: [UInt8])
    case svg(SanitizedSVG)

    public enum Format: String, Sendable, CaseIterable {
        case png, svg
    }

    /// The largest upload of each format, and the largest PNG side in pixels.
    public static let maxPNGBytes = 256 * 1024
    public static let maxSVGBytes = 64 * 1024
    public static let maxSide = 1024

    /// Why an upload is not a logo, for people.
    public struct Refusal: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// Checks an upload of `format`; the logo's `stored` bytes are what to keep (a PNG we wrote, an SVG we rebuilt).
    public init(upload data: [UInt8], format: Format) throws(Refusal) {
        switch format {
        case .png:
            guard data.count <= Self.maxPNGBytes else { throw Refusal(description: "the PNG is \(data.count) bytes; at most \(Self.maxPNGBytes) are accepted") }
            let image: RGBAImage
            do { image = try PNGDecoder.decode(data, maxSide: Self.maxSide) } catch { throw Refusal(description: "the PNG cannot be used: \(error)") }
            self = .png(image, encoded: PNGEncoder.rgba(width: image.width, height: image.height, pixels: image.pixels))
        case .svg:
            guard data.count <= Self.maxSVGBytes else { throw Refusal(description: "the SVG is \(data.count) bytes; at most \(Self.maxSVGBytes) are accepted") }
            guard let text = String(validating: data, as: UTF8.self) else { throw Refusal(description: "the SVG is not UTF-8 text") }
            do { self = .svg(try SVGSanitizer.sanitize(text)) } catch { throw Refusal(description: "the SVG cannot be used: \(error)") }
        }
    }

    public var format: Format {
        switch self {
        case .png: .png
        case .svg: .svg
        }
    }

    /// The bytes to store: read back with `init(upload:format:)`, they give the same logo.
    public var stored: [UInt8] {
        switch self {
        case .png(_, let encoded): encoded
        case .svg(let svg): Array(svg.markup.utf8)
        }
    }

    /// Its size: pixels for a PNG, the viewBox for an SVG.
    public var width: Double {
        switch self {
        case .png(let image, _): Double(image.width)
        case .svg(let svg): svg.width
        }
    }

    public var height: Double {
        switch self {
        case .png(let image, _): Double(image.height)
        case .svg(let svg): svg.height
        }
    }

    /// The size in whole units, rounded up, as `/v1/qr-logos` lists it (finite: the sanitiser bounds an SVG's frame).
    public var wholeWidth: Int { Int(width.rounded(.up)) }
    public var wholeHeight: Int { Int(height.rounded(.up)) }

    /// The picture as a `data:` URI for an SVG `<image>`, which browsers draw without running or fetching anything.
    var dataURI: String {
        switch self {
        case .png(_, let encoded): "data:image/png;base64," + Data(encoded).base64EncodedString()
        case .svg(let svg): "data:image/svg+xml;base64," + Data(svg.markup.utf8).base64EncodedString()
        }
    }
}
