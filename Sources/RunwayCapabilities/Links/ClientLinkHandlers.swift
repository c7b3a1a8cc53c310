import Foundation
import LinkRunwayAPI
import RunwayCrypto
import RunwayHTTP
import RunwayKit
import RunwayStore

/// What apps call with their publishable key: resolve a link that opened them, share a place, get a referral code.
struct ClientLinkHandlers: Sendable {
    let services: ServerServices
    /// Shares a day, in each process: per install, far more than a person shares; per app, so that the publishable key
    /// (anyone has it) cannot fill a domain with links.
    let sharesPerInstall: RateLimiter
    let sharesPerApp: RateLimiter

    static let sharesPerInstallPerDay = 100
    static let sharesPerAppPerDay = 100_000

    init(services: ServerServices) {
        self.services = services
        sharesPerInstall = RateLimiter(capacity: Double(Self.sharesPerInstallPerDay), perSecond: Double(Self.sharesPerInstallPerDay) / 86_400,
                                       clock: services.monotonic)
        sharesPerApp = RateLimiter(capacity: Double(Self.sharesPerAppPerDay), perSecond: Double(Self.sharesPerAppPerDay) / 86_400,
                                   clock: services.monotonic)
    }

    /// Letters and digits people cannot confuse: no 0/O, 1/I/L.
    static let referralAlphabet: [Character] = Array("23456789ABCDEFGHJKMNPQRSTUVWXYZ")

    func resolve(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let body = try request.decode(ResolveRequest.self)
        guard ["ios", "android", "web"].contains(body.platform) else {
            throw RequestError.invalidField("platform", "must be ios, android or web")
        }
        let installId = try Validate.installID(body.installId, field: "installId")
        guard let components = URLComponents(string: body.url), let host = components.host?.lowercased(), body.url.utf8.count <= 2048 else {
            throw RequestError.invalidField("url", "must be an absolute URL")
        }
        let path = components.path.split(separator: "/").joined(separator: "/")
        // A link of another workspace or app answers exactly like a link that does not exist.
        let notFound = LinksError.linkNotFound(url: nil)
        guard let domain = try await services.links.domain(hostname: LinkDirectory.linkHostname(host)), domain.workspaceId == principal.workspaceId,
              !path.isEmpty, let link = try await services.links.link(domain: domain.hostname, path: path),
              link.enabled, link.workspaceId == domain.workspaceId, link.appId == nil || link.appId == principal.appId else {
            throw notFound
        }
        let now = services.clock.nowMilliseconds()
        // Before its start a link is not public yet, as on the web; the app shows its own fallback.
        guard link.hasStarted(at: now) else { throw notFound }
        if link.isExpired(at: now) {
            throw LinksError.linkExpired("this link has expired")
        }
        let token = try await Clicks.record(Clicks.Visit(kind: "open", platform: body.platform, osVersion: nil,
                                                         address: request.remoteAddress, referrerHost: nil, installId: installId),
                                            of: link, services: services)
        let wire = link.wire(services)
        return try .json(ResolvedLink(linkId: link.id, url: wire.url, appPath: link.appPath, metadata: wire.metadata,
                                      clickToken: token, signedClickId: Clicks.signedClickId(token: token, link: link, services: services),
                                      campaign: link.campaign, channel: link.channel, feature: link.feature))
    }

    func createShare(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let body = try request.decode(CreateShareRequest.self)
        guard let workspaceId = principal.workspaceId, let appId = principal.appId else {
            throw AccessError.keyKindForbidden("shares are made with a publishable key")
        }
        let installId = try Validate.installID(body.installId, field: "installId")
        let appPath = try LinkValidate.appPath(body.appPath)
        let metadata = try LinkValidate.metadata(body.metadata)
        // A publishable key ships inside the app, so anyone has it: it must not put text or pictures of its
        // choosing on the brand's domain. A share shows the preview of the app's own link to the same place.
        if body.preview != nil {
            throw AccessError.keyKindForbidden(
                "a share takes its preview from the app's link to the same appPath; previews are set with a server key",
                field: "preview")
        }
        if let installId, let wait = sharesPerInstall.take(appId + "|" + installId) {
            throw RateLimited(seconds: wait, what: "shares from this install today (\(Self.sharesPerInstallPerDay) a day)")
        }
        if let wait = sharesPerApp.take(appId) {
            throw RateLimited(seconds: wait, what: "shares of this app today (\(Self.sharesPerAppPerDay) a day)")
        }
        let now = services.clock.nowMilliseconds()
        let (link, response) = try await IdempotencyClaim.write(services.store, context, { db -> LinkRecord in
            let domain = try LinkQueries.pickDomain(db, workspaceId: workspaceId, hostname: nil)
            var link = LinkRecord(id: Identifier.make("lnk"), workspaceId: workspaceId, appId: appId, kind: "share",
                                  domain: domain, path: "", createdAt: now)
            link.appPath = appPath
            link.metadata = metadata
            let preview = try LinkQueries.sharePreview(db, appId: appId, appPath: appPath)
            link.apply(destinations: LinkDestinations(), preview: preview)
            link.feature = "share"
            link.referrerInstallId = installId
            try LinkQueries.insert(&link, db: db, custom: false)
            return link
        }, answer: { try HTTPResponse.json(Share(linkId: $0.id, url: $0.url(services), path: $0.path), status: 201) })
        services.links.forget(link: link)
        return response
    }

    func createReferralCode(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let body = try request.decode(CreateReferralCodeRequest.self)
        guard let workspaceId = principal.workspaceId, let appId = principal.appId else {
            throw AccessError.keyKindForbidden("referral codes are made with a publishable key")
        }
        let installId = try Validate.installID(body.installId, field: "installId")
        let userId = try body.userId.map { value -> String in
            guard (1...128).contains(value.utf8.count), !value.unicodeScalars.contains(where: { $0.value < 0x20 }) else {
                throw RequestError.invalidField("userId", "must be 1 to 128 characters")
            }
            return value
        }
        guard installId != nil || userId != nil else {
            throw RequestError.missingField("give installId or userId", field: "installId")
        }
        let now = services.clock.nowMilliseconds()
        let (code, created): (ReferralCode, Bool) = try await services.store.write { db in
            // The unique indexes decide: a code taken by a writer at the same instant (for this installation or user,
            // or the same random code) inserts nothing, and the next pass finds the code that won or draws again.
            for _ in 0..<5 {
                if let existing = try LinkQueries.referralCode(db, appId: appId, installId: installId, userId: userId) { return (existing, false) }
                let code = ReferralCode(code: SecureRandom.string(length: 8, alphabet: Self.referralAlphabet), appId: appId,
                                        installId: installId, userId: userId, createdAt: Timestamp.iso(now))
                if try LinkQueries.insertReferralCode(db, workspaceId: workspaceId, code, now: now) { return (code, true) }
            }
            throw StoreError.conflict("no referral code could be stored")
        }
        return try .json(code, status: created ? 201 : 200)
    }

    func getReferralCode(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let principal = try context.principal()
        let code = try context.parameter("code").uppercased()
        let found = try await services.store.read { db in
            try LinkQueries.referralCode(db, code: code, workspaceId: principal.workspaceId ?? "")
                ?? (principal.kind == .admin ? try LinkQueries.referralCode(db, code: code, workspaceId: nil) : nil)
        }
        guard var found else { throw RequestError.notFound("no referral code \(code)") }
        // A publishable key is public: it learns that the code exists and for which app, never whose it is.
        if principal.kind == .publishable { (found.installId, found.userId) = (nil, nil) }
        return try .json(found)
    }
}
