import Foundation
import LinkRunwayAPI

/// `qr-logo` commands: the logos a workspace's QR codes may carry at their centre (`linkrunway link qr --logo`).
enum QRLogoCommands {
    static let add: Command = Command(["qr-logo", "add"], summary: "Upload a PNG or SVG logo for the centre of QR codes.", arguments: "<file>", options: [
        .value("--name", "name", "A name for people (default: the file's name without its extension)."),
        .value("--format", "png|svg", "The file's format (default: from its first bytes)."),
        .value("--workspace", "id", "Workspace (default $LINKRUNWAY_WORKSPACE, else the only one the key sees)."), LinkCommands.jsonFlag,
    ] + APIClient.options, details: """
        A PNG may be at most 256 KiB and 1024 pixels a side; an SVG at most 64 KiB of shapes (no text, images, scripts or
        styles). The server checks the file and stores a copy it writes itself; the id it prints goes to link qr --logo.
        """) { a, c in
        guard a.positionals.count == 1 else { throw UsageError("give exactly one file") }
        let path = a.positionals[0]
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw CommandFailure("cannot read \(path): \(error.localizedDescription)")
        }
        let format = try a.value("--format").map { named in
            guard let format = QRLogoFormat(rawValue: named) else { throw UsageError("--format must be png or svg") }
            return format
        } ?? detected(Array(data), path: path)
        let client = try APIClient(a, c)
        let request = CreateQRLogoRequest(workspaceId: try await client.workspace(a, c), name: a.value("--name") ?? defaultName(path),
                                          format: format.rawValue, data: data.base64EncodedString())
        let logo = try await client.post("/v1/qr-logos", request, as: QRLogo.self)
        c.output(a.flag("--json") ? try Output.json(logo) : "Added \(logo.id): \(logo.name) (\(logo.format), \(logo.width)×\(logo.height))")
    }

    static let list: Command = Command(["qr-logo", "list"], summary: "List QR logos.",
                              options: [.value("--workspace", "id", "Only this workspace's."), LinkCommands.jsonFlag] + APIClient.options) { a, c in
        let path = "/v1/qr-logos" + (a.value("--workspace").map { "?workspaceId=\(APIClient.escape($0))" } ?? "")
        let logos = try await APIClient(a, c).all(path, as: QRLogo.self)
        c.output(a.flag("--json") ? try Output.json(logos) : Output.table(["ID", "NAME", "FORMAT", "SIZE", "BYTES", "WORKSPACE", "CREATED"], logos.map {
            [$0.id, $0.name, $0.format, "\($0.width)×\($0.height)", String($0.bytes), $0.workspaceId, $0.createdAt]
        }))
    }

    static let remove: Command = Command(["qr-logo", "remove"], summary: "Remove a QR logo.",
                                arguments: "<logo-id>", options: APIClient.options) { a, c in
        guard a.positionals.count == 1 else { throw UsageError("give exactly one logo id") }
        try await APIClient(a, c).delete("/v1/qr-logos/\(APIClient.escape(a.positionals[0]))")
        c.output("Removed \(a.positionals[0])")
    }

    static func detected(_ data: [UInt8], path: String) throws -> QRLogoFormat {
        guard let format = QRLogoFormat(sniffing: data) else { throw UsageError("\(path) is neither a PNG nor an SVG; name its format with --format") }
        return format
    }

    static func defaultName(_ path: String) -> String {
        let stem = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        return stem.isEmpty ? "Logo" : String(stem.prefix(100))
    }
}
