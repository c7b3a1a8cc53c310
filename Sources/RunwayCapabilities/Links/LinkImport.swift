import Foundation
import LinkRunwayAPI
import RunwayJSON
import RunwayKit
import RunwayStore

/// One import, run inside one write transaction: each row is created, found unchanged, reported as a conflict (or
/// changed, with `update`), or refused, on its own. A dry run decides the same way and writes nothing.
struct LinkImport {
    /// A row as checked before the transaction: its workspace, its path and its validated fields.
    struct Row: Sendable {
        let body: CreateLinkRequest
        let workspaceId: String
        let path: String
        let draft: LinkDraft

        init(_ body: CreateLinkRequest, principal: Principal, workspaceId: String?) throws {
            guard let path = body.path else { throw RequestError.missingField("path is required: an import finds its links by path", field: "path") }
            self.body = body
            self.path = try LinkValidate.path(path)
            draft = try LinkDraft(body)
            self.workspaceId = try principal.actingWorkspace(body.workspaceId ?? workspaceId)
        }
    }

    /// A field a row defines: how its values are compared and copied.
    struct DefinedField: Sendable {
        let name: String
        let differs: @Sendable (LinkRecord, LinkRecord) -> Bool
        let copy: @Sendable (inout LinkRecord, LinkRecord) -> Void

        init<Value: Equatable & Sendable>(_ name: String, _ path: WritableKeyPath<LinkRecord, Value> & Sendable) {
            self.name = name
            differs = { $0[keyPath: path] != $1[keyPath: path] }
            copy = { $0[keyPath: path] = $1[keyPath: path] }
        }

        /// The metadata, compared as JSON rather than as text: PostgreSQL writes the JSON it changed in its own layout
        /// (step 0047 put back `utm` in the metadata).
        static let metadata = DefinedField(name: "metadata", differs: { decoded($0.metadata) != decoded($1.metadata) },
                                           copy: { $0.metadata = $1.metadata })

        private init(name: String, differs: @escaping @Sendable (LinkRecord, LinkRecord) -> Bool,
                     copy: @escaping @Sendable (inout LinkRecord, LinkRecord) -> Void) {
            self.name = name
            self.differs = differs
            self.copy = copy
        }

        private static func decoded(_ text: String?) -> [String: JSONLiteral]? {
            text.flatMap { try? JSONDecoder().decode([String: JSONLiteral].self, from: Data($0.utf8)) }
        }
    }

    /// Everything a row sets, by its name in the API; `enabled` is not among them, so an import never turns a link on
    /// or off.
    static let definedFields: [DefinedField] = [
        DefinedField("appId", \.appId), DefinedField("appPath", \.appPath), .metadata,
        DefinedField("destinations.ios.appStoreId", \.iosAppStoreId), DefinedField("destinations.ios.url", \.iosURL),
        DefinedField("destinations.android.url", \.androidURL), DefinedField("destinations.web", \.webURL),
        DefinedField("campaign", \.campaign), DefinedField("channel", \.channel), DefinedField("feature", \.feature),
        DefinedField("preview.title", \.previewTitle), DefinedField("preview.description", \.previewDescription),
        DefinedField("preview.imageUrl", \.previewImageURL), DefinedField("interstitial", \.interstitial),
        DefinedField("passQuery", \.passQuery), DefinedField("expiresAt", \.expiresAt), DefinedField("rules", \.rules),
        DefinedField("variants", \.variants), DefinedField("startsAt", \.startsAt), DefinedField("clickLimit", \.clickLimit),
        DefinedField("fallbacks", \.fallbacks), DefinedField("utm", \.utm), DefinedField("inAppBrowserPage", \.inAppBrowserPage),
    ]

    /// The names of the fields in which `existing` differs from what a row wants.
    static func differences(_ existing: LinkRecord, _ wanted: LinkRecord) -> [String] {
        definedFields.filter { $0.differs(existing, wanted) }.map(\.name)
    }

    let db: any SQLExecutor
    let now: Int64
    let dryRun: Bool
    let update: Bool
    let localPort: Int
    /// Links created or changed, for the redirect cache to forget.
    private(set) var changed: [LinkRecord] = []
    /// The first row of each `domain/path key`, so a path named twice is refused the second time, dry run or not.
    private var seen: [String: Int] = [:]

    init(db: any SQLExecutor, now: Int64, dryRun: Bool, update: Bool, localPort: Int) {
        self.db = db
        self.now = now
        self.dryRun = dryRun
        self.update = update
        self.localPort = localPort
    }

    /// What becomes of row `index`. Refusals are its answer; the store's errors end the whole import.
    mutating func apply(_ index: Int, _ checked: Result<Row, any Error>) throws -> LinkImportResult {
        let row: Row
        switch checked {
        case .success(let value): row = value
        case .failure(let error): return Self.refused(index, domain: nil, path: nil, error)
        }
        var domain: String?
        do {
            let appId = try LinkQueries.resolveApp(db, workspaceId: row.workspaceId, requested: row.body.appId)
            let host = try LinkQueries.pickDomain(db, workspaceId: row.workspaceId, hostname: row.body.domain)
            domain = host
            let key = host + "/" + LinkRecord.key(row.path)
            if let first = seen[key] { throw LinksError.pathRepeated(domain: host, path: row.path, firstIndex: first) }
            seen[key] = index
            var wanted = LinkRecord(id: Identifier.make("lnk"), workspaceId: row.workspaceId, appId: appId, kind: "link",
                                    domain: host, path: row.path, createdAt: now)
            row.draft.apply(to: &wanted)
            if let existing = try LinkRecord.find(db, domain: host, path: row.path) {
                return try settle(index, existing: existing, wanted: wanted)
            }
            if dryRun { return LinkImportResult(index: index, domain: host, path: row.path, status: "created") }
            if try wanted.insert(db, unlessTaken: true) {
                changed.append(wanted)
                return result(index, "created", wanted)
            }
            // Another writer took the path since the look-up: judge the row against what it wrote.
            guard let existing = try LinkRecord.find(db, domain: host, path: row.path) else { throw LinksError.pathTaken(domain: host, path: row.path) }
            return try settle(index, existing: existing, wanted: wanted)
        } catch let refusal as any Refusal {
            return Self.refused(index, domain: domain, path: row.path, refusal)
        }
    }

    /// A row whose path exists: unchanged, a conflict, or (with `update`) the link changed to match the row.
    private mutating func settle(_ index: Int, existing: LinkRecord, wanted: LinkRecord) throws -> LinkImportResult {
        guard existing.kind == "link" else { throw LinksError.pathTaken(domain: existing.domain, path: existing.path) }
        let fields = Self.differences(existing, wanted)
        if fields.isEmpty { return result(index, "unchanged", existing) }
        guard update else {
            var conflict = result(index, "conflict", existing, differences: fields)
            conflict.error = LinksError.linkDiffers(domain: existing.domain, path: existing.path, fields: fields).detail
            return conflict
        }
        var link = existing
        for field in Self.definedFields { field.copy(&link, wanted) }
        link.updatedAt = now
        if !dryRun {
            try link.update(db)
            changed.append(link)
        }
        return result(index, "updated", link, differences: fields)
    }

    private func result(_ index: Int, _ status: String, _ link: LinkRecord, differences: [String]? = nil) -> LinkImportResult {
        LinkImportResult(index: index, domain: link.domain, path: link.path, status: status, linkId: link.id,
                         url: link.url(localPort: localPort), differences: differences)
    }

    /// A refused row; the field at fault is named within the request (`links[3].destinations.web`).
    static func refused(_ index: Int, domain: String?, path: String?, _ error: any Error) -> LinkImportResult {
        let detail = ErrorMapping.detail(for: error)
        return LinkImportResult(index: index, domain: domain, path: path, status: "refused",
                                error: ErrorBody.Detail(code: detail.errorCode, message: detail.message, field: detail.field.map { "links[\(index)].\($0)" }))
    }
}
