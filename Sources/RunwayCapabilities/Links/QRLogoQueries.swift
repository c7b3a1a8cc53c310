import LinkRunwayAPI
import RunwayKit
import RunwayStore

/// The SQL of `qr_logos`: a workspace's logos for its QR codes, stored as we wrote them (a PNG of our own, an SVG
/// rebuilt by the sanitiser).
enum QRLogoQueries {
    /// The table, with the blob type of the dialect (`BLOB`, `BYTEA`).
    static func tableSQL(blob: String) -> String {
        """
        CREATE TABLE qr_logos (
            id TEXT PRIMARY KEY,
            workspace_id TEXT NOT NULL REFERENCES workspaces (id),
            name TEXT NOT NULL,
            format TEXT NOT NULL CHECK (format IN ('png', 'svg')),
            width BIGINT NOT NULL,
            height BIGINT NOT NULL,
            image \(blob) NOT NULL,
            created_at BIGINT NOT NULL
        );
        CREATE INDEX qr_logos_by_workspace ON qr_logos (workspace_id, created_at, id);
        """
    }

    static func insert(_ db: any SQLExecutor, _ logo: QRLogo, image: [UInt8], now: Int64) throws {
        try db.execute("""
            INSERT INTO qr_logos (id, workspace_id, name, format, width, height, image, created_at)
            VALUES (\(logo.id), \(logo.workspaceId), \(logo.name), \(logo.format), \(logo.width), \(logo.height), \(image), \(now))
            """)
    }

    /// The logo's workspace, format and stored bytes, if there is one with this id.
    static func image(_ db: any SQLExecutor, id: String) throws -> (workspaceId: String, format: String, image: [UInt8])? {
        try db.first("SELECT workspace_id, format, image FROM qr_logos WHERE id = \(id)", as: LinkRows.LogoImage.self)
            .map { ($0.workspaceId, $0.format, $0.image) }
    }

    static func workspace(_ db: any SQLExecutor, id: String) throws -> String? {
        try db.first("SELECT workspace_id FROM qr_logos WHERE id = \(id)", as: LinkRows.WorkspaceOf.self)?.workspaceId
    }

    static func delete(_ db: any SQLExecutor, id: String) throws {
        try db.execute("DELETE FROM qr_logos WHERE id = \(id)")
    }
}
