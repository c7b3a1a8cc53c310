/// A logo a workspace uploaded to draw at the centre of its links' QR codes (`?logo=<id>`).
public struct QRLogo: Codable, Sendable, Equatable {
    public var id: String
    public var workspaceId: String
    public var name: String
    /// `png` or `svg`: an SVG logo is drawn only in `qr.svg`.
    public var format: String
    /// Pixels for a PNG, the viewBox for an SVG (rounded up).
    public var width: Int
    public var height: Int
    /// The size of the stored logo (a PNG written again by the server, an SVG rebuilt from what it accepts).
    public var bytes: Int
    public var createdAt: String

    public init(id: String, workspaceId: String, name: String, format: String, width: Int, height: Int, bytes: Int, createdAt: String) {
        self.id = id
        self.workspaceId = workspaceId
        self.name = name
        self.format = format
        self.width = width
        self.height = height
        self.bytes = bytes
        self.createdAt = createdAt
    }
}

extension QRLogo: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "id": .id("Logo id (qrl_…)."), "workspaceId": .id("Owning workspace."), "name": FieldNote("A name for people."),
        "format": .oneOf(QRLogoFormat.allCases.map(\.rawValue), "png, or svg (drawn only in qr.svg)."),
        "width": .between(1, nil, "Pixels (PNG) or viewBox units (SVG)."), "height": .between(1, nil, "Pixels (PNG) or viewBox units (SVG)."),
        "bytes": .between(1, nil, "Size of the stored logo."), "createdAt": .timestamp,
    ]
}

/// The formats a QR logo is uploaded in.
public enum QRLogoFormat: String, Codable, Sendable, CaseIterable {
    case png, svg
}

/// `POST /v1/qr-logos`: a PNG (at most 256 KiB and 1024 pixels a side) or an SVG (at most 64 KiB of shapes, no
/// scripts, styles, text, images or links), base64 in `data`.
public struct CreateQRLogoRequest: Codable, Sendable {
    public var workspaceId: String?
    public var name: String
    public var format: String
    /// The file, in standard base64.
    public var data: String

    public init(workspaceId: String? = nil, name: String, format: String, data: String) {
        self.workspaceId = workspaceId
        self.name = name
        self.format = format
        self.data = data
    }
}

extension CreateQRLogoRequest: DescribedWireType {
    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = [
        "workspaceId": .adminWorkspace,
        "name": FieldNote("A name for people.", minLength: 1, maxLength: 100),
        "format": .oneOf(QRLogoFormat.allCases.map(\.rawValue), "png or svg."),
        "data": FieldNote("The file in standard base64: a PNG of at most 262144 bytes and 1024 pixels a side, or an SVG of at most 65536 bytes.",
                          minLength: 1, maxLength: 349_528),
    ]
}

extension QRLogoFormat {
    /// The format a file's first bytes show: PNG by its signature, SVG when the text starts (after a byte order mark
    /// and white space) with markup; nil for anything else. The server checks the whole file either way.
    public init?(sniffing data: [UInt8]) {
        if data.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .png
            return
        }
        var text = data[...]
        if text.starts(with: [0xEF, 0xBB, 0xBF]) { text = text.dropFirst(3) }
        guard text.drop(while: { [0x20, 0x09, 0x0A, 0x0D].contains($0) }).first == UInt8(ascii: "<") else { return nil }
        self = .svg
    }
}
