/// How a QR code is drawn: its colours, its quiet zone and an optional centre logo. Made only through `init`, which
/// refuses colours a scanner cannot tell apart.
public struct QRStyle: Sendable {
    /// The lowest contrast ratio (WCAG 2) between the modules and the background that is drawn: 3:1, the ratio WCAG
    /// asks of graphics; below it phone cameras in poor light misread codes.
    public static let minimumContrast = 3.0

    public let foreground: QRColor
    public let background: QRColor
    /// The quiet zone, in modules, on every side.
    public let margin: Int
    public let logo: QRLogoImage?

    /// Why colours were refused.
    public enum Refusal: Error, Equatable, CustomStringConvertible {
        /// Light modules on a dark background: many scanners (zbar among them) read only dark on light.
        case inverted
        case lowContrast(ratio: Double)

        public var description: String {
            switch self {
            case .inverted:
                "the foreground must be darker than the background: many scanners cannot read light modules on dark"
            case .lowContrast(let ratio):
                "the colours' contrast is \(Double(Int(ratio * 100)) / 100):1; scanners need at least \(Int(QRStyle.minimumContrast)):1"
            }
        }
    }

    public init(foreground: QRColor = .black, background: QRColor = .white, margin: Int = 4, logo: QRLogoImage? = nil) throws(Refusal) {
        guard foreground.luminance < background.luminance else { throw .inverted }
        let ratio = QRColor.contrast(foreground, background)
        guard ratio >= Self.minimumContrast else { throw .lowContrast(ratio: ratio) }
        self.foreground = foreground
        self.background = background
        self.margin = margin
        self.logo = logo
    }

    /// The error correction the code needs: H (30% recoverable) when a logo covers its centre, else `requested`.
    public func correction(requested: QRCode.Correction) -> QRCode.Correction { logo == nil ? requested : .high }
}
