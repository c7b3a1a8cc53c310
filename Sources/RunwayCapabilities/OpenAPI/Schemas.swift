import LinkRunwayAPI
import RunwayJSON
import RunwayKit

/// The component schemas of the OpenAPI document, one per wire type of `LinkRunwayAPI`.
package enum Schemas {
    private typealias S = JSONSchema

    static let idPattern = "^[a-z]+_[0-9A-Za-z]{8,64}$"
    static let teamIdPattern = "^[A-Z0-9]{10}$"
    static let bundleIdPattern = "^[A-Za-z0-9-]+(\\.[A-Za-z0-9-]+)+$"
    static let appStoreIdPattern = "^[1-9][0-9]{0,11}$"

    static let hostnamePattern = "^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$"
    static let httpsPattern = "^https://"

    /// Optional in a request: the value or null.
    static func orNull(_ schema: JSONValue) -> JSONValue { .object([("anyOf", [schema, .object([("type", "null")])])]) }

    static var linkSchemas: [(String, JSONValue)] {
        let metadata = JSONValue.object([("type", "object"), ("description", "Free JSON for the app, at most 8 KiB.")])
        let https = S.string("An absolute https:// URL.", pattern: httpsPattern, maxLength: 2048)
        let tag = S.string("1 to 100 characters.", minLength: 1, maxLength: 100)
        let appPath = S.string("A place in the app, starting with /.", pattern: "^/", maxLength: 512)
        let linkFields: [(String, JSONValue)] = [
            ("appPath", orNull(appPath)),
            ("metadata", orNull(metadata)),
            ("destinations", orNull(S.ref("LinkDestinations"))),
            ("campaign", orNull(tag)), ("channel", orNull(tag)), ("feature", orNull(tag)),
            ("preview", orNull(S.ref("LinkPreview"))),
            ("interstitial", .object([("type", ["boolean", "null"])])),
            ("passQuery", .object([("type", ["boolean", "null"])])),
            ("expiresAt", orNull(S.timestamp)),
        ]
        return [
            ("LinkDomain", S.object([
                ("id", S.string("Domain id (dom_…).", pattern: idPattern)),
                ("workspaceId", S.string("Owning workspace.", pattern: idPattern)),
                ("hostname", S.string("The hostname.", pattern: hostnamePattern)),
                ("createdAt", S.timestamp),
                ("verified", .object([("type", "boolean"), ("description", "Control of the hostname is proven; only verified domains serve links.")])),
                ("verification", S.ref("DomainVerification")),
            ], required: ["id", "workspaceId", "hostname", "createdAt", "verified"])),
            ("DomainVerification", S.object([
                ("recordName", S.string("_linkrunway-challenge.<hostname>")), ("recordType", S.enumeration(["TXT"], "The record's type.")),
                ("recordValue", S.string("linkrunway-verification=<token>")),
            ], required: ["recordName", "recordType", "recordValue"])),
            ("CreateLinkDomainRequest", S.object([
                ("workspaceId", S.string("Required with an admin key.", nullable: true)),
                ("hostname", S.string("go.example.com: no scheme, no port.", minLength: 1, maxLength: 253)),
            ], required: ["hostname"])),
            ("LinkDomainPage", S.page(of: "LinkDomain")),
            ("LinkDestinations", S.object([
                ("ios", orNull(S.object([
                    ("appStoreId", orNull(S.string("Defaults to the app's.", pattern: appStoreIdPattern))),
                    ("url", orNull(https)),
                ], required: []))),
                ("android", orNull(S.object([("url", https)], required: ["url"]))),
                ("web", orNull(https)),
            ], required: [], description: "Where devices go when the app does not open the link.")),
            ("LinkPreview", S.object([
                ("title", orNull(S.string("At most 300 characters.", maxLength: 300))),
                ("description", orNull(S.string("At most 300 characters.", maxLength: 300))),
                ("imageUrl", orNull(https)),
            ], required: [], description: "What the link looks like in messengers and social networks.")),
            ("Link", S.object([
                ("id", S.string("Link id (lnk_…).", pattern: idPattern)),
                ("workspaceId", S.string("Owning workspace.", pattern: idPattern)),
                ("appId", S.string("The app it opens.", pattern: idPattern)),
                ("kind", S.enumeration(["link", "share"], "Made by the owner, or shared by a user of the app.")),
                ("domain", S.string("Hostname.")),
                ("path", S.string("Path, matched without case.")),
                ("url", S.string("The full link.", pattern: httpsPattern)),
                ("appPath", appPath),
                ("metadata", metadata),
                ("destinations", S.ref("LinkDestinations")),
                ("campaign", S.string("Campaign tag.")), ("channel", S.string("Channel tag.")), ("feature", S.string("Feature tag.")),
                ("preview", S.ref("LinkPreview")),
                ("interstitial", .object([("type", "boolean")])),
                ("passQuery", .object([("type", "boolean")])),
                ("enabled", .object([("type", "boolean")])),
                ("expiresAt", S.timestamp),
                ("referrerInstallId", S.string("For shares: who shared it.")),
                ("createdAt", S.timestamp), ("updatedAt", S.timestamp),
            ], required: ["id", "workspaceId", "kind", "domain", "path", "url", "destinations", "interstitial", "passQuery", "enabled",
                          "createdAt", "updatedAt"])),
            ("CreateLinkRequest", S.object([
                ("workspaceId", S.string("Required with an admin key.", nullable: true)),
                ("appId", S.string("Defaults to the workspace's only app.", nullable: true)),
                ("domain", S.string("One of the workspace's link domains; its first by default.", nullable: true)),
                ("path", orNull(S.string("Custom path; generated when absent.", pattern: "^[A-Za-z0-9._~-]+(/[A-Za-z0-9._~-]+)*$", minLength: 1, maxLength: 200))),
            ] + linkFields, required: [])),
            ("UpdateLinkRequest", S.object(linkFields + [("enabled", .object([("type", ["boolean", "null"])]))], required: [],
                                           description: "Fields to change; absent or null fields stay.")),
            ("LinkPage", S.page(of: "Link")),
            ("ResolveRequest", S.object([
                ("url", S.string("The URL that opened the app.", minLength: 1, maxLength: 2048)),
                ("platform", S.enumeration(["ios", "android", "web"], "The client's platform.")),
                ("installId", orNull(S.string("The SDK's install id.", pattern: "^[0-9A-Za-z-]{1,64}$"))),
            ], required: ["url", "platform"])),
            ("ResolvedLink", S.object([
                ("linkId", S.string("Link id.", pattern: idPattern)),
                ("url", S.string("The link.")),
                ("appPath", appPath),
                ("metadata", metadata),
                ("clickToken", S.string("Identifies this open.", pattern: "^[0-9A-Za-z]{32}$")),
                ("signedClickId", S.string("This open, signed and expiring in 7 days.")),
                ("campaign", S.string("Campaign tag.")), ("channel", S.string("Channel tag.")), ("feature", S.string("Feature tag.")),
            ], required: ["linkId", "url", "clickToken", "signedClickId"])),
            ("CreateShareRequest", S.object([
                ("installId", S.string("The sharing installation.", pattern: "^[0-9A-Za-z-]{1,64}$")),
                ("appPath", appPath),
                ("metadata", orNull(metadata)),
                ("preview", orNull(S.ref("LinkPreview"))),
            ], required: ["installId", "appPath"])),
            ("Share", S.object([
                ("linkId", S.string("Link id.", pattern: idPattern)),
                ("url", S.string("The link to share.", pattern: httpsPattern)),
                ("path", S.string("Its path.")),
            ], required: ["linkId", "url", "path"])),
            ("CreateReferralCodeRequest", S.object([
                ("installId", orNull(S.string("An installation.", pattern: "^[0-9A-Za-z-]{1,64}$"))),
                ("userId", orNull(S.string("A user of the app.", minLength: 1, maxLength: 128))),
            ], required: [], description: "Give installId, userId or both (a user id wins).")),
            ("ReferralCode", S.object([
                ("code", S.string("Eight characters without look-alikes.", pattern: "^[2-9A-HJKMNP-Z]{8}$")),
                ("appId", S.string("App.", pattern: idPattern)),
                ("installId", S.string("Installation.")),
                ("userId", S.string("User.")),
                ("createdAt", S.timestamp),
            ], required: ["code", "appId", "createdAt"])),
            ("AppleAppSiteAssociation", S.object([
                ("applinks", .object([("type", "object")])),
            ], required: ["applinks"])),
        ]
    }

    static var attributionSchemas: [(String, JSONValue)] {
        let installId = S.string("The SDK's install id (a UUID).", pattern: "^[0-9A-Za-z-]{1,64}$")
        let method = S.enumeration(["referrer", "probabilistic", "view_through", "unmatched"], "How the install was matched.")
        let counts = JSONValue.object([("type", "object"), ("additionalProperties", .object([("type", "integer")]))])
        let attribution = S.object([
            ("method", method),
            ("source", S.string("link, apple_ads, ad:<network>, organic or returning.")),
            ("linkId", S.string("Link.")), ("campaign", S.string("Campaign.")), ("channel", S.string("Channel.")), ("feature", S.string("Feature.")),
            ("appleAdsCampaignId", S.string("Apple Ads campaign.")), ("appleAdsAdGroupId", S.string("Apple Ads ad group.")),
            ("appleAdsKeywordId", S.string("Apple Ads keyword.")),
        ], required: ["method", "source"], description: "The attribution an event was written with.")
        let errorDetail = S.object([
            ("code", S.string("Stable code.")), ("message", S.string("For people.")), ("field", S.string("The field at fault.")),
        ], required: ["code", "message"])
        let properties = JSONValue.object([("type", "object"), ("description", "Free JSON, at most 4 KiB.")])
        let iso = S.string("ISO 8601 time.", minLength: 1, maxLength: 40)
        let attestationToken = S.string("An App Attest token from /v1/attest/apple/register or /assert.", maxLength: 1024)
        let base64 = { (description: String, limit: Int) in S.string(description, pattern: "^[A-Za-z0-9+/=_-]+$", maxLength: limit) }
        return [
            ("MatchInstallRequest", S.object([
                ("installId", installId),
                ("platform", S.enumeration(["ios", "tvos"], "The device's platform.")),
                ("osVersion", orNull(S.string("major.minor", pattern: "^[0-9.]{1,16}$"))),
                ("language", orNull(S.string("A language tag.", pattern: "^[A-Za-z0-9_-]{1,35}$"))),
                ("consent", .object([("type", "boolean"), ("description", "Must be true.")])),
                ("clickToken", orNull(S.string("A click token the app holds.", maxLength: 64))),
                ("attestation", orNull(attestationToken)),
                ("installSecret", orNull(S.string("A random secret the device keeps; forgetting the install then needs it in LinkRunway-Install-Secret.",
                                                  pattern: "^[!-~]{16,128}$", minLength: 16, maxLength: 128))),
                ("returning", orNull(.object([("type", "boolean"), ("description",
                    "This device reported its installation before, under an id it has since deleted: register unmatched and leave out of install counts.")]))),
                ("appTransactionId", orNull(S.string("StoreKit 2's AppTransaction.appTransactionID, kept with the install (ignored when returning).",
                                                     pattern: "^[A-Za-z0-9-]{1,64}$", minLength: 1, maxLength: 64))),
            ], required: ["installId", "platform", "consent"])),
            ("InstallMatch", S.object([
                ("installId", S.string("Install id.")), ("appId", S.string("App.", pattern: idPattern)),
                ("matched", .object([("type", "boolean")])), ("method", method),
                ("confidence", .object([("type", "number"), ("minimum", 0), ("maximum", 1)])),
                ("source", S.string("link, ad:<network>, organic or returning (registered again after consent was given again).")),
                ("clickId", S.string("The matched click's token.")), ("linkId", S.string("Link.")),
                ("path", S.string("The link's in-app path.")), ("url", S.string("The link.")),
                ("metadata", .object([("type", "object")])),
                ("campaign", S.string("Campaign.")), ("channel", S.string("Channel.")), ("feature", S.string("Feature.")),
                ("matchedAt", S.timestamp),
            ], required: ["installId", "appId", "matched", "method", "confidence", "source", "matchedAt"])),
            ("MatchCandidate", S.object([
                ("method", S.enumeration(["referrer", "probabilistic", "view_through"], "Method.")),
                ("clickToken", S.string("Click.")), ("impressionId", S.string("Impression.")), ("linkId", S.string("Link.")),
                ("network", S.string("Ad network.")), ("campaign", S.string("Campaign.")),
                ("ageSeconds", .object([("type", "integer")])), ("eligible", .object([("type", "boolean")])),
                ("reason", S.string("Why it was taken or passed over.")),
            ], required: ["method", "ageSeconds", "eligible", "reason"])),
            ("AttributionSettings", S.object([
                ("probabilisticMinutes", .object([("type", "integer")])), ("viewThroughHours", .object([("type", "integer")])),
                ("clickWindowDays", .object([("type", "integer")])),
            ], required: ["probabilisticMinutes", "viewThroughHours", "clickWindowDays"])),
            ("AttributionExplanation", S.object([
                ("match", S.ref("InstallMatch")), ("settings", S.ref("AttributionSettings")),
                ("rules", S.array(S.string("A rule.", minLength: 1), "The rules in the order applied.")),
                ("candidates", S.array(S.ref("MatchCandidate"), "Everything considered.")),
                ("winner", S.ref("MatchCandidate")), ("simulated", .object([("type", "boolean")])),
            ], required: ["match", "settings", "rules", "candidates", "simulated"])),
            ("ImpressionRequest", S.object([
                ("appId", S.string("App.", minLength: 1)), ("ip", S.string("The device's numeric address.", minLength: 2, maxLength: 45)),
                ("timestamp", orNull(iso)), ("network", orNull(S.string("Ad network.", minLength: 1, maxLength: 100))),
                ("campaign", orNull(S.string("Campaign.", minLength: 1, maxLength: 100))),
            ], required: ["appId", "ip"])),
            ("Impression", S.object([
                ("id", S.string("Impression id.", pattern: idPattern)), ("appId", S.string("App.")), ("network", S.string("Network.")),
                ("campaign", S.string("Campaign.")), ("createdAt", S.timestamp),
            ], required: ["id", "appId", "createdAt"])),
            ("EventRequest", S.object([
                ("eventId", S.string("Yours; a retry with the same id is stored once.", pattern: "^[0-9A-Za-z._:-]{1,64}$")),
                ("type", S.enumeration(Events.types.sorted(), "Event type; revenue types need a server key.")),
                ("name", orNull(S.string("Required for CUSTOM.", minLength: 1, maxLength: 100))),
                ("userId", orNull(S.string("Your user id.", minLength: 1, maxLength: 128))),
                ("installId", installId),
                ("timestamp", iso),
                ("amount", .object([("type", ["integer", "null"]), ("minimum", 0), ("description", "Minor units, for revenue types.")])),
                ("currency", orNull(S.string("ISO 4217, with an amount.", pattern: "^[A-Z]{3}$"))),
                ("properties", orNull(properties)),
                ("appId", orNull(S.string("Required with a server key."))),
                ("attestation", orNull(attestationToken)),
                ("clickToken", orNull(S.string("The click token of the link that last opened the app.", maxLength: 64))),
            ], required: ["eventId", "type", "installId", "timestamp"])),
            ("EventAttribution", attribution),
            ("EventResult", S.object([
                ("eventId", S.string("The event's id.")),
                ("status", S.enumeration(["stored", "duplicate", "rejected"], "What happened.")),
                ("attribution", S.ref("EventAttribution")), ("error", errorDetail),
            ], required: ["status"])),
            ("EventBatchRequest", S.object([
                ("events", .object([("type", "array"), ("minItems", 1), ("maxItems", 500), ("items", S.ref("EventRequest"))])),
            ], required: ["events"])),
            ("EventBatchResponse", S.object([
                ("results", S.array(S.ref("EventResult"), "One per event, in order.")),
                ("stored", .object([("type", "integer")])), ("duplicates", .object([("type", "integer")])), ("rejected", .object([("type", "integer")])),
            ], required: ["results", "stored", "duplicates", "rejected"])),
            ("DeletionReceipt", S.object([
                ("installId", S.string("Install.")), ("appId", S.string("App.")), ("deletedAt", S.timestamp), ("deleted", counts),
            ], required: ["installId", "appId", "deletedAt", "deleted"])),
            ("StoredEvent", S.object([
                ("eventId", S.string("Id.")), ("type", S.string("Type.")), ("name", S.string("Name.")), ("userId", S.string("User.")),
                ("occurredAt", S.timestamp), ("receivedAt", S.timestamp), ("amount", .object([("type", "integer")])),
                ("currency", S.string("Currency.")), ("properties", properties), ("attested", .object([("type", "boolean")])),
                ("attribution", S.ref("EventAttribution")),
            ], required: ["eventId", "type", "occurredAt", "receivedAt", "attested", "attribution"])),
            ("StoredVisit", S.object([
                ("token", S.string("Token.")), ("kind", S.enumeration(["click", "open"], "Kind.")), ("linkId", S.string("Link.")),
                ("platform", S.string("Platform.")), ("osVersion", S.string("OS version.")), ("referrerHost", S.string("Referrer host.")),
                ("createdAt", S.timestamp),
            ], required: ["token", "kind", "linkId", "platform", "createdAt"])),
            ("AppleAdsClaimRequest", S.object([
                ("installId", installId),
                ("token", S.string("The AdServices token.", pattern: "^[A-Za-z0-9+/=_-]{1,8192}$")),
            ], required: ["installId", "token"])),
            ("AppleAdsAttribution", S.object([
                ("orgId", S.string("Org.")), ("campaignId", S.string("Campaign.")), ("adGroupId", S.string("Ad group.")),
                ("keywordId", S.string("Keyword (absent with search match).")), ("adId", S.string("Ad.")),
                ("conversionType", S.string("Download or Redownload.")), ("claimType", S.string("Click or Impression.")),
                ("clickDate", S.timestamp), ("impressionDate", S.timestamp), ("countryOrRegion", S.string("Country or region.")),
                ("supplyPlacement", S.string("Placement.")),
            ], required: [])),
            ("AppleAdsClaim", S.object([
                ("installId", S.string("Install.")),
                ("status", S.enumeration(["pending", "attributed", "not_attributed", "invalid", "expired"], "State.")),
                ("retryAfter", .object([("type", "integer"), ("minimum", 1)])),
                ("attribution", S.ref("AppleAdsAttribution")),
                ("testData", .object([("type", "boolean")])),
            ], required: ["installId", "status", "testData"])),
            ("AttestChallenge", S.object([
                ("challenge", S.string("Use its SHA-256 as the client data hash, once, within five minutes.")),
                ("expiresAt", S.timestamp),
            ], required: ["challenge", "expiresAt"])),
            ("AttestRegisterRequest", S.object([
                ("appId", S.string("The publishable key's app.", pattern: idPattern)),
                ("keyId", base64("The key id from DCAppAttestService.generateKey, base64.", 64)),
                ("attestation", base64("The attestation object from attestKey, base64.", 131_072)),
                ("challenge", S.string("A challenge from /v1/attest/apple/challenge.", minLength: 1, maxLength: 64)),
                ("installId", orNull(installId)),
            ], required: ["appId", "keyId", "attestation", "challenge"])),
            ("AttestAssertRequest", S.object([
                ("appId", S.string("The publishable key's app.", pattern: idPattern)),
                ("keyId", base64("A registered key id, base64.", 64)),
                ("assertion", base64("The assertion from generateAssertion, base64.", 10_924)),
                ("challenge", S.string("A challenge from /v1/attest/apple/challenge.", minLength: 1, maxLength: 64)),
                ("installId", orNull(installId)),
            ], required: ["appId", "keyId", "assertion", "challenge"])),
            ("AttestationGrant", S.object([
                ("token", S.string("Send as attestation with matches and events.")),
                ("expiresAt", S.timestamp),
                ("environment", S.enumeration(["development", "production"], "The key's App Attest environment.")),
            ], required: ["token", "expiresAt", "environment"])),
            ("InstallExport", S.object([
                ("attribution", S.ref("AttributionExplanation")),
                ("appleAds", S.ref("AppleAdsClaim")),
                ("events", S.array(S.ref("StoredEvent"), "Events.")), ("visits", S.array(S.ref("StoredVisit"), "Clicks and opens.")),
                ("referralCodes", S.array(S.ref("ReferralCode"), "Referral codes.")),
                ("sharedLinkIds", S.array(S.string("Link id."), "Links this installation shared.")),
                ("affiliateBinds", S.array(S.ref("ExportedBind"), "Affiliate binds made from this installation.")),
                ("webhookDeliveries", S.array(S.ref("ExportedWebhookDelivery"), "Webhook deliveries, sent or queued, that mention it.")),
            ], required: ["events", "visits", "referralCodes", "sharedLinkIds", "affiliateBinds", "webhookDeliveries"])),
            ("ExportedBind", S.object([
                ("appAccountToken", S.string("The purchase token.")), ("affiliateId", S.string("Affiliate.")), ("programId", S.string("Program.")),
                ("method", S.string("How the bind was made.")), ("createdAt", S.timestamp),
            ], required: ["appAccountToken", "affiliateId", "programId", "method", "createdAt"])),
            ("ExportedWebhookDelivery", S.object([
                ("id", S.string("Delivery.")), ("webhookId", S.string("Endpoint.")), ("topic", S.string("Topic.")), ("status", S.string("pending, delivered or failed.")),
                ("payload", S.string("The JSON body as sent.")), ("createdAt", S.timestamp),
            ], required: ["id", "webhookId", "topic", "status", "payload", "createdAt"])),
            ("FunnelRow", S.object([
                ("key", S.string("The group.")), ("clicks", .object([("type", "integer")])), ("installs", .object([("type", "integer")])),
                ("opens", .object([("type", "integer")])), ("events", counts), ("revenue", counts),
            ], required: ["key", "clicks", "installs", "opens", "events", "revenue"])),
            ("FunnelReport", S.object([
                ("from", S.timestamp), ("to", S.timestamp), ("groupBy", S.enumeration(FunnelReports.groupings, "Grouping.")),
                ("rows", S.array(S.ref("FunnelRow"), "Rows, by key.")),
            ], required: ["from", "to", "groupBy", "rows"])),
            ("WebhookEndpoint", S.object([
                ("id", S.string("Webhook id.", pattern: idPattern)), ("workspaceId", S.string("Workspace.")), ("url", S.string("Endpoint.")),
                ("topics", S.array(S.enumeration(Webhooks.topics, "Topic."), "Topics.")), ("enabled", .object([("type", "boolean")])),
                ("createdAt", S.timestamp),
            ], required: ["id", "workspaceId", "url", "topics", "enabled", "createdAt"])),
            ("CreateWebhookRequest", S.object([
                ("workspaceId", S.string("Required with an admin key.", nullable: true)),
                ("url", S.string("A public https:// URL (private addresses and http:// only with LINKRUNWAY_OUTBOUND_PRIVATE_TARGETS=on).", minLength: 1, maxLength: 2048)),
                ("topics", S.array(S.enumeration(Webhooks.topics, "Topic."), "What to hear about.", minItems: 1)),
            ], required: ["url", "topics"])),
            ("CreatedWebhook", S.object([
                ("webhook", S.ref("WebhookEndpoint")),
                ("secret", S.string("Signs deliveries (LinkRunway-Signature: t=…,v1=HMAC-SHA256 of \"t.body\"). Shown only here.", pattern: "^whsec_")),
            ], required: ["webhook", "secret"])),
            ("WebhookPage", S.page(of: "WebhookEndpoint")),
            ("ConsoleUser", S.object([
                ("id", S.string("User id (usr_…).", pattern: idPattern)), ("workspaceId", S.string("The one workspace they see.")),
                ("email", S.string("Lower-cased; they sign in with it.")), ("createdAt", S.timestamp),
            ], required: ["id", "workspaceId", "email", "createdAt"])),
            ("CreateConsoleUserRequest", S.object([
                ("workspaceId", S.string("Required with an admin key.", nullable: true)),
                ("email", S.string("An email address, unique across the server.", minLength: 3, maxLength: 254)),
                ("password", S.string("12 to 1024 characters; stored only as a PBKDF2-HMAC-SHA256 hash.", minLength: 12, maxLength: 1024)),
            ], required: ["email", "password"])),
            ("ConsoleUserPage", S.page(of: "ConsoleUser")),
            ("WebhookDelivery", S.object([
                ("id", S.string("Delivery id.")), ("webhookId", S.string("Webhook.")), ("topic", S.string("Topic.")),
                ("status", S.enumeration(["pending", "delivered", "failed"], "State.")), ("attempts", .object([("type", "integer")])),
                ("lastStatus", .object([("type", "integer")])), ("lastError", S.string("Last failure: dns_failed, connect_failed, blocked_address, blocked_scheme, tls_failed, timeout, http_<status> or send_failed.")), ("nextAttemptAt", S.timestamp),
                ("createdAt", S.timestamp), ("deliveredAt", S.timestamp),
            ], required: ["id", "webhookId", "topic", "status", "attempts", "createdAt"])),
            ("WebhookDeliveryList", S.object([("items", S.array(S.ref("WebhookDelivery"), "Newest first."))], required: ["items"])),
            ("SimulateClickRequest", S.object([
                ("url", S.string("The link.", minLength: 1, maxLength: 2048)),
                ("ip", orNull(S.string("The device's address (default: yours).", maxLength: 45))),
                ("userAgent", orNull(S.string("Default: an iPhone.", maxLength: 1024))),
            ], required: ["url"])),
            ("SimulatedClick", S.object([
                ("clickToken", S.string("Token.")), ("linkId", S.string("Link.")), ("platform", S.string("Platform.")),
                ("location", S.string("Where the device would have gone.")),
            ], required: ["clickToken", "linkId", "platform"])),
            ("SimulateInstallRequest", S.object([
                ("appId", S.string("App.", minLength: 1)), ("installId", orNull(installId)),
                ("ip", orNull(S.string("The device's address (default: yours).", maxLength: 45))),
                ("platform", orNull(S.enumeration(["ios", "tvos"], "Default ios."))),
                ("osVersion", orNull(S.string("major.minor", pattern: "^[0-9.]{1,16}$"))),
                ("clickToken", orNull(S.string("A click token.", maxLength: 64))),
            ], required: ["appId"])),
        ]
    }

    package static var all: [(String, JSONValue)] {
        let platform = S.enumeration(Platform.allCases.map(\.rawValue), "A platform the app ships on.")
        let kind = S.enumeration(KeyKind.allCases.map(\.rawValue), "publishable (lr_pk_, in apps), server (lr_sk_, backends) or admin (lr_ak_, everything).")
        let name = S.string("A name for people, 1 to 100 characters.", minLength: 1, maxLength: 100)
        let android = S.object([
            ("packageName", S.string("Java package name.", pattern: "^[A-Za-z][A-Za-z0-9_]*(\\.[A-Za-z][A-Za-z0-9_]*)+$", maxLength: 255)),
            ("sha256CertFingerprints", S.array(S.string("AB:CD:… (32 pairs).", pattern: "^([0-9A-Fa-f]{2}:){31}[0-9A-Fa-f]{2}$"),
                                               "Signing certificate fingerprints.", minItems: 1)),
        ], required: ["packageName", "sha256CertFingerprints"], description: "The Android twin of the app, for assetlinks.json.")
        let integer: (String, Int, Int) -> JSONValue = { description, low, high in
            .object([("type", "integer"), ("minimum", .number(String(low))), ("maximum", .number(String(high))), ("description", .string(description))])
        }
        let attribution = S.object([
            ("probabilisticMinutes", integer("Minutes after a click for a match by hashed address; 0 is off.", 0, 1440)),
            ("viewThroughHours", integer("Hours after an ad impression for a view-through match; 0 is off.", 0, 168)),
            ("clickWindowDays", integer("Days a click token can be matched.", 1, 30)),
        ], required: ["probabilisticMinutes", "viewThroughHours", "clickWindowDays"], description: "How installs are matched.")
        let attributionUpdate = orNull(S.object([
            ("probabilisticMinutes", orNull(integer("0 (off) to 1440.", 0, 1440))),
            ("viewThroughHours", orNull(integer("0 (off) to 168.", 0, 168))),
            ("clickWindowDays", orNull(integer("1 to 30.", 1, 30))),
        ], required: [], description: "Changes to how installs are matched; absent fields stay."))
        let attestation = S.object([
            ("policy", S.enumeration(["off", "optional", "required"],
                                     "off ignores tokens; optional marks attested traffic; required keeps unattested traffic out of attribution.")),
            ("environments", S.array(S.enumeration(["development", "production"], "An App Attest environment."),
                                     "Environments whose keys are accepted; no repeats.", minItems: 1)),
        ], required: ["policy", "environments"], description: "App Attest for this app's clients.")
        return [
            ("Error", S.object([
                ("error", S.object([
                    ("code", S.string("Stable machine-readable code, e.g. invalid_field.")),
                    ("message", S.string("What went wrong, for people.")),
                    ("field", S.string("The request field at fault, as a path.")),
                ], required: ["code", "message"])),
            ], required: ["error"])),
            ("HealthStatus", S.object([
                ("status", S.enumeration(["ok"], "Always ok while the process runs.")),
                ("version", S.string("The server's version.")),
            ], required: ["status", "version"])),
            ("ReadinessStatus", S.object([
                ("status", S.enumeration(["ready", "unavailable"], "Whether requests can be served.")),
                ("store", S.string("ok, or why the database cannot be reached.")),
                ("schema", S.string("The newest migration the database records.")),
            ], required: ["status", "store"])),
            ("Workspace", S.object([
                ("id", S.string("Workspace id (ws_…).", pattern: idPattern)),
                ("name", S.string("Name.")),
                ("createdAt", S.timestamp),
            ], required: ["id", "name", "createdAt"])),
            ("CreateWorkspaceRequest", S.object([("name", name)], required: ["name"])),
            ("WorkspacePage", S.page(of: "Workspace")),
            ("App", S.object([
                ("id", S.string("App id (app_…).", pattern: idPattern)),
                ("workspaceId", S.string("Owning workspace.", pattern: idPattern)),
                ("name", S.string("Name.")),
                ("teamId", S.string("Apple Developer Team ID.", pattern: teamIdPattern)),
                ("bundleId", S.string("Bundle ID.", pattern: bundleIdPattern)),
                ("appStoreId", S.string("Numeric App Store ID.", pattern: appStoreIdPattern)),
                ("platforms", S.array(platform, "Platforms.", minItems: 1)),
                ("android", android),
                ("attribution", attribution),
                ("attestation", attestation),
                ("postbacks", S.ref("PostbackSettings")),
                ("createdAt", S.timestamp),
                ("updatedAt", S.timestamp),
            ], required: ["id", "workspaceId", "name", "teamId", "bundleId", "platforms", "attribution", "attestation", "postbacks",
                          "createdAt", "updatedAt"])),
            ("CreateAppRequest", S.object([
                ("workspaceId", S.string("Required with an admin key; a server key's own workspace by default.", nullable: true)),
                ("name", name),
                ("teamId", S.string("Apple Developer Team ID.", pattern: teamIdPattern)),
                ("bundleId", S.string("Bundle ID, reverse-DNS.", pattern: bundleIdPattern, maxLength: 155)),
                ("appStoreId", S.string("Numeric App Store ID.", pattern: appStoreIdPattern, nullable: true)),
                ("platforms", S.array(platform, "Defaults to [\"ios\"]; no repeats.", minItems: 1, nullable: true)),
                ("android", .object([("anyOf", [android, .object([("type", "null")])])])),
                ("attribution", attributionUpdate),
                ("attestation", orNull(attestation)),
                ("postbacks", orNull(S.ref("PostbackSettings"))),
            ], required: ["name", "teamId", "bundleId"])),
            ("UpdateAppRequest", S.object([
                ("name", S.string("A name for people, 1 to 100 characters.", minLength: 1, maxLength: 100, nullable: true)),
                ("teamId", S.string("Apple Developer Team ID.", pattern: teamIdPattern, nullable: true)),
                ("bundleId", S.string("Bundle ID, reverse-DNS.", pattern: bundleIdPattern, maxLength: 155, nullable: true)),
                ("appStoreId", S.string("Numeric App Store ID.", pattern: appStoreIdPattern, nullable: true)),
                ("platforms", S.array(platform, "No repeats.", minItems: 1, nullable: true)),
                ("android", .object([("anyOf", [android, .object([("type", "null")])])])),
                ("attribution", attributionUpdate),
                ("attestation", orNull(attestation)),
                ("postbacks", orNull(S.ref("PostbackSettings"))),
            ], required: [], description: "Fields to change; absent or null fields stay as they are.")),
            ("AppPage", S.page(of: "App")),
            ("APIKey", S.object([
                ("id", S.string("Key id (key_…).", pattern: idPattern)),
                ("kind", kind),
                ("name", S.string("Name.")),
                ("workspaceId", S.string("Absent for admin keys.", pattern: idPattern)),
                ("appId", S.string("Set for publishable keys.", pattern: idPattern)),
                ("displayPrefix", S.string("The first characters of the secret.")),
                ("createdAt", S.timestamp),
                ("revokedAt", S.timestamp),
                ("createdBy", S.string("The key or console user that made it (absent for the first admin key).")),
            ], required: ["id", "kind", "name", "displayPrefix", "createdAt"])),
            ("CreateKeyRequest", S.object([
                ("kind", kind),
                ("name", S.string("A name for people, 1 to 100 characters.", minLength: 1, maxLength: 100, nullable: true)),
                ("workspaceId", S.string("For server keys created with an admin key.", nullable: true)),
                ("appId", S.string("Required for publishable keys.", nullable: true)),
            ], required: ["kind"])),
            ("CreatedKey", S.object([
                ("key", S.ref("APIKey")),
                ("secret", S.string("The key itself. Shown only in this response; store it now.", pattern: "^lr_(pk|sk|ak)_[0-9A-Za-z]{48}$")),
            ], required: ["key", "secret"])),
            ("APIKeyPage", S.page(of: "APIKey")),
        ] + linkSchemas + attributionSchemas + postbackSchemas + affiliateSchemas + [
            ("WhoAmI", S.object([
                ("keyId", S.string("The key's id.", pattern: idPattern)),
                ("kind", kind),
                ("workspaceId", S.string("Absent for admin keys.", pattern: idPattern)),
                ("appId", S.string("Set for publishable keys.", pattern: idPattern)),
            ], required: ["keyId", "kind"])),
        ]
    }
}
