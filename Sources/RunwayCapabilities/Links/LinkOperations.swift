import LinkRunwayAPI
import RunwayHTTP
import RunwayKit

/// What the OpenAPI document says about each link domain and link route.
extension Operation {
    static let createDomain = Operation(
        id: "createDomain", summary: "Add a link domain to a workspace", tag: "Link domains", access: Access.management,
        requestSchema: .of(CreateLinkDomainRequest.self), responses: [.json(201, LinkDomain.self, "The domain.")],
        maxBodyBytes: 16 * 1024, errors: [409], idempotent: true)

    static let verifyDomain = Operation(
        id: "verifyDomain", summary: "Check the domain's DNS TXT record; once it is there, the domain serves links",
        tag: "Link domains", access: Access.management, responses: [.json(200, LinkDomain.self, "The domain, verified.")], errors: [409, 503])

    static let listDomains = Operation(
        id: "listDomains", summary: "List link domains", tag: "Link domains", access: Access.management,
        responses: [.json(200, Page<LinkDomain>.self, "A page of domains.")],
        query: [QueryParameterDoc("workspaceId", "Only this workspace's domains.")] + pageQuery, errors: [404])

    static let deleteDomain = Operation(
        id: "deleteDomain", summary: "Remove a link domain that has no links", tag: "Link domains", access: Access.management,
        responses: [ResponseDoc(status: 204, description: "Removed.")], errors: [409])

    static let createLink = Operation(
        id: "createLink", summary: "Create a link", tag: "Links", access: Access.management,
        requestSchema: .of(CreateLinkRequest.self), responses: [.json(201, Link.self, "The link.")],
        maxBodyBytes: 64 * 1024, errors: [409], idempotent: true)

    static let importLinks = Operation(
        id: "importLinks",
        summary: "Create up to 500 links at once; each row is created, unchanged, a conflict (or updated) or refused on its own",
        tag: "Links", access: Access.management, requestSchema: .of(ImportLinksRequest.self),
        responses: [.json(200, ImportLinksResponse.self, "One result per row, in order; with dryRun, what would happen.")],
        maxBodyBytes: 4 * 1024 * 1024, idempotent: true)

    static let listLinks = Operation(
        id: "listLinks", summary: "List links", tag: "Links", access: Access.management,
        responses: [.json(200, Page<Link>.self, "A page of links, oldest first.")],
        query: [
            QueryParameterDoc("workspaceId", "Only this workspace's links."), QueryParameterDoc("appId", "Only this app's."),
            QueryParameterDoc("domain", "Only links on this hostname."), QueryParameterDoc("campaign", "Only this campaign."),
            QueryParameterDoc("channel", "Only this channel."), QueryParameterDoc("feature", "Only this feature."),
            QueryParameterDoc("kind", "link or share."), QueryParameterDoc("enabled", "true or false.", schema: "boolean"),
            QueryParameterDoc("q", "Only links whose path, in-app path, campaign or channel contains this text (any case)."),
        ] + pageQuery, errors: [404])

    static let getLink = Operation(
        id: "getLink", summary: "Show a link", tag: "Links", access: Access.management,
        responses: [.json(200, Link.self, "The link.")])

    static let linkStats = Operation(
        id: "linkStats",
        summary: "A link's clicks, opens, installs, events and net revenue per UTC day, with breakdowns, from its daily rollups",
        tag: "Links", access: Access.management,
        responses: [.json(200, LinkStats.self, "The figures (send Accept: text/csv for CSV).")], query: LinkStatsQuery.documentation)

    static let updateLink = Operation(
        id: "updateLink", summary: "Change a link (never its domain or path)", tag: "Links", access: Access.management,
        requestSchema: .of(UpdateLinkRequest.self), responses: [.json(200, Link.self, "The link as changed.")],
        maxBodyBytes: 64 * 1024, idempotent: true)

    static let disableLink = Operation(
        id: "disableLink", summary: "Disable a link at once (it answers 404 from then on)", tag: "Links",
        access: Access.management, responses: [.json(200, Link.self, "The disabled link.")])
}

/// What the OpenAPI document says about the routes apps call with their publishable key.
extension Operation {
    static let resolveLink = Operation(
        id: "resolveLink", summary: "The app was opened by a link: its in-app path and metadata, and a recorded open",
        tag: "Client", access: Access.client, requestSchema: .of(ResolveRequest.self),
        responses: [.json(200, ResolvedLink.self, "The link (its rules and click limit are for redirects, not for the app)."),
                    .json(404, ErrorBody.self, "link_not_found, also before the link's start"), .json(410, ErrorBody.self, "link_expired")],
        maxBodyBytes: 8 * 1024, rateLimited: true)

    static let createShare = Operation(
        id: "createShare", summary: "A user of the app shares a place in it; the link remembers who shared it",
        tag: "Client", access: Access.client, requestSchema: .of(CreateShareRequest.self),
        responses: [.json(201, Share.self, "The new link.")], maxBodyBytes: 16 * 1024, errors: [409], idempotent: true, rateLimited: true)

    static let createReferralCode = Operation(
        id: "createReferralCode", summary: "The referral code of an installation or user (made once, then the same one)",
        tag: "Client", access: Access.client, requestSchema: .of(CreateReferralCodeRequest.self),
        responses: [.json(201, ReferralCode.self, "A new code."), .json(200, ReferralCode.self, "The code made before.")],
        maxBodyBytes: 8 * 1024, rateLimited: true)

    static let getReferralCode = Operation(
        id: "getReferralCode", summary: "Look up a referral code (any case)", tag: "Client", access: Access.anyKey,
        responses: [.json(200, ReferralCode.self, "The code; whom it belongs to (installId, userId) only for a server or admin key.")], rateLimited: true)
}

/// What the OpenAPI document says about what a link domain serves.
extension Operation {
    static let appleAppSiteAssociation = Operation(
        id: "appleAppSiteAssociation", summary: "Universal links association for the link domain in Host", tag: "Link domains",
        access: .open, responses: [.json(200, AppleAppSiteAssociation.self, "The association file."),
                                   .json(404, ErrorBody.self, "The Host is not a link domain.")])

    static let appleAppSiteAssociationRoot = Operation(
        id: "appleAppSiteAssociationRoot", summary: appleAppSiteAssociation.summary + " (legacy location)", tag: appleAppSiteAssociation.tag,
        access: .open, responses: appleAppSiteAssociation.responses)

    static let assetLinks = Operation(
        id: "assetLinks", summary: "Android App Links association for the link domain in Host", tag: "Link domains",
        access: .open, responses: [ResponseDoc(status: 200, description: "The statement list.", contentType: "application/json"),
                                   .json(404, ErrorBody.self, "Not a link domain, or no Android app configured.")])

    static let followLink = Operation(
        id: "followLink",
        summary: "Follow a link: the first of its rules that holds (or its default) decides, the click is recorded with its variant, then the device is sent where it belongs",
        tag: "Link domains", access: .open, responses: [
            ResponseDoc(status: 302, description: "To the rule's or variant's URL, the App Store, the store, the web page, or a fallback (before the start, after expiry, over the click limit)."),
            ResponseDoc(status: 200, description: "A preview page for crawlers, or the branded interstitial.", contentType: "text/html"),
            ResponseDoc(status: 404, description: "Unknown, disabled or not yet started link (HTML), or a Host that is not a link domain (JSON).",
                        contentType: "text/html", orJSONError: true),
            ResponseDoc(status: 410, description: "The link has expired or reached its click limit, and has no fallback for it.", contentType: "text/html"),
        ])
}
