import Foundation
import LinkRunwayAPI
import RunwayHTTP
import RunwayQR
import RunwayStore

/// `/v1/links`: short links on the workspace's domains, managed with server (or admin) keys.
enum LinkRoutes {
    static func routes(_ services: ServerServices) -> [Route] {
        [
            Route(method: .POST, pattern: "/v1/links", operation: Operation(
                id: "createLink", summary: "Create a link", tag: "Links", access: Access.management,
                requestSchema: "CreateLinkRequest", responses: [.json(201, "Link", "The link.")],
                maxBodyBytes: 64 * 1024, errors: [409], idempotent: true)
            ) { request, context in
                let principal = try context.principal()
                let body = try request.decode(CreateLinkRequest.self)
                guard let workspaceId = body.workspaceId ?? principal.workspaceId else {
                    throw HTTPError.badRequest(ErrorCode.missingField, "workspaceId is required with an admin key", field: "workspaceId")
                }
                try principal.requireWorkspace(workspaceId)
                let customPath = try body.path.map(LinkValidate.path)
                let draft = try LinkDraft(body)
                let now = services.clock.nowMilliseconds()
                let (link, response) = try await IdempotencyClaim.write(services.store, context, { db -> LinkRecord in
                    let appId = try resolveApp(db, workspaceId: workspaceId, requested: body.appId)
                    let domain = try DomainRoutes.pick(db, workspaceId: workspaceId, hostname: body.domain)
                    var link = LinkRecord(id: Identifier.make("lnk"), workspaceId: workspaceId, appId: appId, kind: "link",
                                          domain: domain, path: customPath ?? "", createdAt: now)
                    draft.apply(to: &link)
                    try insert(&link, db: db, custom: customPath != nil)
                    return link
                }, answer: { try HTTPResponse.json($0.wire, status: 201) })
                services.links.forget(link: link)
                return response
            },

            Route(method: .GET, pattern: "/v1/links", operation: Operation(
                id: "listLinks", summary: "List links", tag: "Links", access: Access.management,
                responses: [.json(200, "LinkPage", "A page of links, oldest first.")],
                query: [
                    QueryParameterDoc("workspaceId", "Only this workspace's links."), QueryParameterDoc("appId", "Only this app's."),
                    QueryParameterDoc("domain", "Only links on this hostname."), QueryParameterDoc("campaign", "Only this campaign."),
                    QueryParameterDoc("channel", "Only this channel."), QueryParameterDoc("feature", "Only this feature."),
                    QueryParameterDoc("kind", "link or share."), QueryParameterDoc("enabled", "true or false.", schema: "boolean"),
                ] + pageQuery)
            ) { request, context in
                let principal = try context.principal()
                let page = try PageRequest(request)
                var filter = try principal.workspaceFilter(request)
                for (parameter, column) in [("appId", "app_id"), ("domain", "domain"), ("campaign", "campaign"), ("channel", "channel"),
                                            ("feature", "feature"), ("kind", "kind")] {
                    if let value = request.queryValue(parameter) { filter = filter + " AND \(raw: column) = \(value)" }
                }
                if let enabled = request.queryValue("enabled") {
                    guard let flag = Bool(enabled) else {
                        throw HTTPError.badRequest(ErrorCode.invalidQuery, "enabled must be true or false", field: "enabled")
                    }
                    filter = filter + " AND enabled = \(flag)"
                }
                return try .json(await readPage(services.store, table: "links", columns: LinkRecord.columns, filter: filter, page: page,
                                                row: { try LinkRecord(row: $0).wire }, id: \.id))
            },

            Route(method: .GET, pattern: "/v1/links/{linkId}", operation: Operation(
                id: "getLink", summary: "Show a link", tag: "Links", access: Access.management,
                responses: [.json(200, "Link", "The link.")])
            ) { _, context in
                try .json(try await load(services, context).wire)
            },

            Route(method: .PATCH, pattern: "/v1/links/{linkId}", operation: Operation(
                id: "updateLink", summary: "Change a link (never its domain or path)", tag: "Links", access: Access.management,
                requestSchema: "UpdateLinkRequest", responses: [.json(200, "Link", "The link as changed.")],
                maxBodyBytes: 64 * 1024, idempotent: true)
            ) { request, context in
                let principal = try context.principal()
                let id = try context.parameter("linkId")
                let body = try request.decode(UpdateLinkRequest.self)
                let change = try LinkChange(body)
                let now = services.clock.nowMilliseconds()
                let (link, response) = try await IdempotencyClaim.write(services.store, context, { db -> LinkRecord in
                    guard var link = try LinkRecord.find(db, id: id) else { throw HTTPError.notFound(ErrorCode.notFound, "no link \(id)") }
                    try principal.requireWorkspace(link.workspaceId)
                    change.apply(to: &link)
                    link.updatedAt = now
                    try link.update(db)
                    return link
                }, answer: { try HTTPResponse.json($0.wire) })
                services.links.forget(link: link)
                return response
            },

            Route(method: .POST, pattern: "/v1/links/{linkId}/disable", operation: Operation(
                id: "disableLink", summary: "Disable a link at once (it answers 404 from then on)", tag: "Links",
                access: Access.management, responses: [.json(200, "Link", "The disabled link.")])
            ) { _, context in
                let principal = try context.principal()
                let id = try context.parameter("linkId")
                let now = services.clock.nowMilliseconds()
                let link: LinkRecord = try await services.store.write { db in
                    guard var link = try LinkRecord.find(db, id: id) else { throw HTTPError.notFound(ErrorCode.notFound, "no link \(id)") }
                    try principal.requireWorkspace(link.workspaceId)
                    if link.enabled {
                        link.enabled = false
                        link.updatedAt = now
                        try link.update(db)
                    }
                    return link
                }
                services.links.forget(link: link)
                return try .json(link.wire)
            },

            qrRoute(services, format: "svg"),
            qrRoute(services, format: "png"),
        ]
    }

    static func qrRoute(_ services: ServerServices, format: String) -> Route {
        Route(method: .GET, pattern: "/v1/links/{linkId}/qr.\(format)", operation: Operation(
            id: "linkQR\(format.uppercased())", summary: "The link as a QR code (\(format.uppercased()))", tag: "Links",
            access: Access.management,
            responses: [ResponseDoc(status: 200, description: "The picture.", contentType: format == "svg" ? "image/svg+xml" : "image/png")],
            query: [
                QueryParameterDoc("size", "Pixels per side, 64 to 2048 (default 512).", schema: "integer"),
                QueryParameterDoc("margin", "Quiet zone in modules, 0 to 16 (default 4).", schema: "integer"),
                QueryParameterDoc("ecc", "Error correction: L, M (default), Q or H."),
            ])
        ) { request, context in
            let link = try await load(services, context)
            let size = try intQuery(request, "size", default: 512, range: 64...2048)
            let margin = try intQuery(request, "margin", default: 4, range: 0...16)
            guard let correction = QRCode.Correction(rawValue: (request.queryValue("ecc") ?? "M").uppercased()) else {
                throw HTTPError.badRequest(ErrorCode.invalidQuery, "ecc must be L, M, Q or H", field: "ecc")
            }
            let code = try QRCode(text: link.url, correction: correction)
            var response = format == "svg"
                ? HTTPResponse.text(code.svg(pixels: size, margin: margin), contentType: "image/svg+xml")
                : HTTPResponse(status: 200, body: code.png(pixels: size, margin: margin))
            if format == "png" { response.headers.set("Content-Type", "image/png") }
            response.headers.set("Cache-Control", "private, max-age=86400")
            return response
        }
    }

    static func intQuery(_ request: HTTPRequest, _ name: String, default value: Int, range: ClosedRange<Int>) throws -> Int {
        guard let text = request.queryValue(name) else { return value }
        guard let number = Int(text), range.contains(number) else {
            throw HTTPError.badRequest(ErrorCode.invalidQuery, "\(name) must be an integer from \(range.lowerBound) to \(range.upperBound)", field: name)
        }
        return number
    }

    /// The link named by the path, if the caller may see it.
    static func load(_ services: ServerServices, _ context: RequestContext) async throws -> LinkRecord {
        let principal = try context.principal()
        let id = try context.parameter("linkId")
        guard let link = try await services.store.read({ db in try LinkRecord.find(db, id: id) }) else {
            throw HTTPError.notFound(ErrorCode.notFound, "no link \(id)")
        }
        try principal.requireWorkspace(link.workspaceId)
        return link
    }

    /// The app a new link opens: the one asked for (it must be the workspace's), else the workspace's only app.
    static func resolveApp(_ db: any SQLExecutor, workspaceId: String, requested: String?) throws -> String? {
        if let requested {
            guard let app = try TenancyQueries.app(db, id: requested), app.workspaceId == workspaceId else {
                throw HTTPError.invalidField("appId", "no app of this workspace has this id")
            }
            return app.id
        }
        let apps = try db.query("SELECT id FROM apps WHERE workspace_id = \(workspaceId) LIMIT 2")
        return apps.count == 1 ? try apps[0].string("id") : nil
    }

    /// Inserts the link; a generated path (8 base32 characters) is drawn again while taken.
    static func insert(_ link: inout LinkRecord, db: any SQLExecutor, custom: Bool) throws {
        if custom {
            if try LinkRecord.find(db, domain: link.domain, path: link.path) != nil {
                throw HTTPError.conflict(ErrorCode.pathTaken, "\(link.domain)/\(link.path) is taken")
            }
        } else {
            repeat {
                link.path = SecureRandom.linkPath()
            } while try LinkRecord.find(db, domain: link.domain, path: link.path) != nil
        }
        do {
            try link.insert(db)
        } catch StoreError.conflict {
            throw HTTPError.conflict(ErrorCode.pathTaken, "\(link.domain)/\(link.path) is taken")
        }
    }
}

import RunwayCrypto

extension SecureRandom {
    /// A generated link path: 8 lower-case base32 characters (40 bits; paths are public, not secret).
    static func linkPath() -> String { string(length: 8, alphabet: base32) }
}

/// The validated fields of a create request.
struct LinkDraft: Sendable {
    let appPath: String?
    let metadata: String?
    let destinations: LinkDestinations
    let campaign: String?, channel: String?, feature: String?
    let preview: LinkPreview?
    let interstitial: Bool, passQuery: Bool
    let expiresAt: Int64?

    init(_ body: CreateLinkRequest) throws {
        appPath = try LinkValidate.appPath(body.appPath)
        metadata = try LinkValidate.metadata(body.metadata)
        destinations = try LinkValidate.destinations(body.destinations)
        campaign = try LinkValidate.tag(body.campaign, field: "campaign")
        channel = try LinkValidate.tag(body.channel, field: "channel")
        feature = try LinkValidate.tag(body.feature, field: "feature")
        preview = try LinkValidate.preview(body.preview)
        interstitial = body.interstitial ?? false
        passQuery = body.passQuery ?? false
        expiresAt = try LinkValidate.timestamp(body.expiresAt, field: "expiresAt")
    }

    func apply(to link: inout LinkRecord) {
        link.appPath = appPath
        link.metadata = metadata
        link.apply(destinations: destinations, preview: preview)
        link.campaign = campaign
        link.channel = channel
        link.feature = feature
        link.interstitial = interstitial
        link.passQuery = passQuery
        link.expiresAt = expiresAt
    }
}

/// The validated fields of an update request; nil leaves a field as it is.
struct LinkChange: Sendable {
    let appPath: String?
    let metadata: String?
    let destinations: LinkDestinations?
    let campaign: String?, channel: String?, feature: String?
    let preview: LinkPreview?
    let interstitial: Bool?, passQuery: Bool?, enabled: Bool?
    let expiresAt: Int64?

    init(_ body: UpdateLinkRequest) throws {
        appPath = try LinkValidate.appPath(body.appPath)
        metadata = try LinkValidate.metadata(body.metadata)
        destinations = try body.destinations.map { try LinkValidate.destinations($0) }
        campaign = try LinkValidate.tag(body.campaign, field: "campaign")
        channel = try LinkValidate.tag(body.channel, field: "channel")
        feature = try LinkValidate.tag(body.feature, field: "feature")
        preview = try LinkValidate.preview(body.preview)
        interstitial = body.interstitial
        passQuery = body.passQuery
        enabled = body.enabled
        expiresAt = try LinkValidate.timestamp(body.expiresAt, field: "expiresAt")
    }

    func apply(to link: inout LinkRecord) {
        if let appPath { link.appPath = appPath }
        if let metadata { link.metadata = metadata }
        if let destinations {
            link.apply(destinations: destinations, preview: preview ?? link.wire.preview)
        } else if let preview {
            link.apply(destinations: link.wire.destinations, preview: preview)
        }
        if let campaign { link.campaign = campaign }
        if let channel { link.channel = channel }
        if let feature { link.feature = feature }
        if let interstitial { link.interstitial = interstitial }
        if let passQuery { link.passQuery = passQuery }
        if let enabled { link.enabled = enabled }
        if let expiresAt { link.expiresAt = expiresAt }
    }
}
