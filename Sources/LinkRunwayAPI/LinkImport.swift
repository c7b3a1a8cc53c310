/// `POST /v1/links/import`: up to 500 link definitions, each created, found unchanged, or reported on its own.
/// A row is the whole definition of its link, as `POST /v1/links` takes it, except that its path is required, so a
/// second run finds the links the first one made.
public struct ImportLinksRequest: Codable, Sendable {
    /// The workspace of rows that name none; required with an admin key unless every row names one.
    public var workspaceId: String?
    /// Check every row and answer what would happen, changing nothing.
    public var dryRun: Bool?
    /// Change a link that exists with other fields to match its row, instead of reporting a conflict.
    public var update: Bool?
    public var links: [CreateLinkRequest]

    public init(workspaceId: String? = nil, dryRun: Bool? = nil, update: Bool? = nil, links: [CreateLinkRequest]) {
        self.workspaceId = workspaceId
        self.dryRun = dryRun
        self.update = update
        self.links = links
    }

    /// The most rows one request takes.
    public static let batchLimit = 500
}

extension ImportLinksRequest: DescribedWireType {
    public static let role = WireRole.request
    public static let notes: [String: FieldNote] = [
        "workspaceId": FieldNote("The workspace of rows that name none; required with an admin key unless every row names one."),
        "dryRun": FieldNote("Check every row and answer what would happen; nothing changes."),
        "update": FieldNote("Change links that exist with other fields to match their rows, instead of reporting a conflict."),
        "links": .list(of: nil, "Link definitions as POST /v1/links takes them, each with its path.", minItems: 1, maxItems: batchLimit),
    ]
}

/// What became of one row of an import.
public struct LinkImportResult: Codable, Sendable, Equatable {
    /// The row's place in `links`, from 0.
    public var index: Int
    public var domain: String?
    public var path: String?
    /// `created`, `unchanged`, `updated`, `conflict` (exists with other fields; not changed) or `refused`.
    public var status: String
    /// The link, when there is one (none for a dry run's `created` or a `refused` row).
    public var linkId: String?
    public var url: String?
    /// For `conflict` and `updated`: the fields in which the link differed from its row.
    public var differences: [String]?
    /// Why a row was refused or is a conflict.
    public var error: ErrorBody.Detail?

    public init(index: Int, domain: String?, path: String?, status: String, linkId: String? = nil, url: String? = nil,
                differences: [String]? = nil, error: ErrorBody.Detail? = nil) {
        self.index = index
        self.domain = domain
        self.path = path
        self.status = status
        self.linkId = linkId
        self.url = url
        self.differences = differences
        self.error = error
    }

    /// Every status a row may end with.
    public static let statuses = ["created", "unchanged", "updated", "conflict", "refused"]
}

extension LinkImportResult: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "index": .between(0, Int64(ImportLinksRequest.batchLimit - 1), "The row's place in links, from 0."),
        "domain": FieldNote("The link domain."), "path": FieldNote("The path."),
        "status": .oneOf(statuses, "What happened (in a dry run: what would happen)."),
        "linkId": .id("The link, when there is one."), "url": FieldNote("The link's address.", pattern: WirePattern.link),
        "differences": .list(of: nil, "Fields in which the link differed from its row (conflict, updated)."),
    ]
}

/// The per-row report of an import, in the order of the rows, with counts.
public struct ImportLinksResponse: Codable, Sendable, Equatable {
    public var dryRun: Bool
    public var results: [LinkImportResult]
    public var created: Int
    public var unchanged: Int
    public var updated: Int
    public var conflicts: Int
    public var refused: Int

    public init(dryRun: Bool, results: [LinkImportResult]) {
        self.dryRun = dryRun
        self.results = results
        func count(_ status: String) -> Int { results.count { $0.status == status } }
        created = count("created")
        unchanged = count("unchanged")
        updated = count("updated")
        conflicts = count("conflict")
        refused = count("refused")
    }
}

extension ImportLinksResponse: DescribedWireType {
    public static let notes: [String: FieldNote] = [
        "dryRun": FieldNote("Nothing was changed; the statuses say what would happen."),
        "results": .list(of: nil, "One per row, in order."),
    ]
}
