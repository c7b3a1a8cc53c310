import LinkRunwayAPI
import RunwayJSON
import RunwayKit

/// The component schemas of conversion schemas, postbacks and ad networks.
extension Schemas {
    private typealias S = JSONSchema

    static var postbackSchemas: [(String, JSONValue)] {
        let integer: (String, Int, Int) -> JSONValue = { description, low, high in
            .object([("type", "integer"), ("minimum", .number(String(low))), ("maximum", .number(String(high))), ("description", .string(description))])
        }
        let type = S.enumeration(Events.types.sorted(), "The event type the rule answers to.")
        let coarse = S.enumeration(["low", "medium", "high"], "Apple's coarse conversion value.")
        let name = orNull(S.string("The event's name, for CUSTOM and others that carry one.", minLength: 1, maxLength: 100))
        let minAmount = JSONValue.object([("type", ["integer", "null"]), ("minimum", 0), ("description", "The least amount, in minor units.")])
        let lock = JSONValue.object([("type", ["boolean", "null"]), ("description", "Ask Apple to close the window now.")])
        let boolean = JSONValue.object([("type", "boolean")])
        let count = JSONValue.object([("type", "integer"), ("minimum", 0)])
        let text = { (description: String) in S.string(description) }
        let appStoreId = JSONValue.object([("type", "integer"), ("minimum", 1), ("maximum", 999_999_999_999), ("description", "App Store id.")])
        return [
            ("ConversionRule", S.object([
                ("type", type), ("name", name), ("minAmount", minAmount), ("fine", integer("Apple's fine value.", 0, 63)),
                ("coarse", orNull(coarse)), ("lockWindow", lock),
            ], required: ["type", "fine"])),
            ("LaterWindowRule", S.object([
                ("type", type), ("name", name), ("minAmount", minAmount), ("coarse", coarse), ("lockWindow", lock),
            ], required: ["type", "coarse"])),
            ("LaterWindow", S.object([
                ("window", integer("The conversion window: 2 or 3.", 2, 3)),
                ("rules", S.array(S.ref("LaterWindowRule"), "Its coarse rules.", minItems: 1)),
            ], required: ["window", "rules"])),
            ("ConversionSchemaRequest", S.object([
                ("rules", .object([("type", "array"), ("minItems", 1), ("maxItems", 128), ("items", S.ref("ConversionRule"))])),
                ("laterWindows", orNull(S.array(S.ref("LaterWindow"), "Coarse mappings of windows 2 and 3; rules' coarse values otherwise."))),
            ], required: ["rules"])),
            ("ConversionSchema", S.object([
                ("appId", S.string("App.", pattern: idPattern)), ("version", integer("Version, from 1.", 1, Int(Int32.max))),
                ("rules", S.array(S.ref("ConversionRule"), "First-window rules.")),
                ("laterWindows", S.array(S.ref("LaterWindow"), "Windows 2 and 3.")), ("createdAt", S.timestamp),
            ], required: ["appId", "version", "rules", "laterWindows", "createdAt"])),
            ("ConversionSchemaList", S.object([("items", S.array(S.ref("ConversionSchema"), "Newest first."))], required: ["items"])),
            ("MobileConfig", S.object([
                ("appId", S.string("App.", pattern: idPattern)), ("conversions", S.ref("ConversionSchema")),
                ("refreshSeconds", count),
            ], required: ["appId", "refreshSeconds"])),
            ("PostbackCampaign", S.object([
                ("adNetworkId", S.string("The ad network's id.", minLength: 1, maxLength: 100)),
                ("sourceIdentifier", S.string("campaign-id or source-identifier digits.", pattern: "^[0-9]{1,4}$")),
                ("name", S.string("The campaign's name in reports.", minLength: 1, maxLength: 100)),
            ], required: ["adNetworkId", "sourceIdentifier", "name"])),
            ("PostbackSettings", S.object([
                ("acceptDevelopment", boolean),
                ("forwardUrls", S.array(S.string("A public https:// URL (private addresses and http:// only with LINKRUNWAY_OUTBOUND_PRIVATE_TARGETS=on).", maxLength: 2048), "At most 5 partners.")),
                ("campaigns", S.array(S.ref("PostbackCampaign"), "At most 1000.")),
            ], required: ["acceptDevelopment", "forwardUrls", "campaigns"], description: "How the app's postbacks are received, named and forwarded.")),
            ("DecodedConversion", S.object([("type", text("Event type.")), ("name", text("Event name.")), ("minAmount", count)], required: ["type"])),
            ("StoredPostback", S.object([
                ("id", S.string("Postback id (pb_…).", pattern: idPattern)),
                ("framework", S.enumeration(["skadnetwork", "adattributionkit"], "Which receiver.")),
                ("status", S.enumeration(["valid", "invalid", "duplicate"], "The verdict.")),
                ("reason", text("Why not valid (a stable code).")), ("detail", text("Why, for people.")), ("receivedAt", S.timestamp),
                ("appId", text("The app it was for.")), ("version", text("SKAdNetwork version.")), ("kid", text("AdAttributionKit key id.")),
                ("environment", S.enumeration(["production", "development"], "Apple's key environment.")),
                ("adNetworkId", text("Ad network.")), ("campaignId", text("SKAdNetwork 1–3 campaign.")),
                ("sourceIdentifier", text("Source identifier digits.")), ("campaign", text("The app's name for it.")),
                ("appStoreId", text("The advertised app.")), ("transactionId", text("Transaction or postback identifier.")),
                ("window", integer("Conversion window.", 1, 3)), ("didWin", boolean), ("redownload", boolean),
                ("conversionType", text("download, redownload or re-engagement.")), ("fidelityType", count),
                ("sourceAppId", text("Publisher app.")), ("sourceDomain", text("Publisher domain.")), ("fineValue", integer("Fine value.", 0, 63)),
                ("coarseValue", text("Coarse value.")), ("countryCode", text("Country.")), ("interactionType", text("click or view.")),
                ("tier", text("Crowd-anonymity tier the fields imply.")), ("schemaVersion", count),
                ("decoded", S.array(S.ref("DecodedConversion"), "What the value stood for.")),
            ], required: ["id", "framework", "status", "receivedAt", "environment", "window"])),
            ("PostbackPage", S.page(of: "StoredPostback")),
            ("PostbackReceipt", S.object([
                ("id", S.string("Postback id.", pattern: idPattern)),
                ("status", S.enumeration(["valid", "invalid", "duplicate"], "The verdict.")), ("reason", text("Why not valid.")),
            ], required: ["id", "status"])),
            ("PostbackReportRow", S.object([
                ("key", text("The group.")), ("postbacks", count), ("installs", count), ("redownloads", count), ("reengagements", count),
                ("nonWinning", count), ("withheld", count), ("fineValues", count), ("coarseValues", count), ("invalid", count), ("duplicates", count),
            ], required: ["key", "postbacks", "installs", "redownloads", "reengagements", "nonWinning", "withheld", "fineValues", "coarseValues",
                          "invalid", "duplicates"])),
            ("PostbackReport", S.object([
                ("from", S.timestamp), ("to", S.timestamp), ("groupBy", text("The grouping.")),
                ("rows", S.array(S.ref("PostbackReportRow"), "One per group.")),
            ], required: ["from", "to", "groupBy", "rows"])),
            ("CreateAdNetworkRequest", S.object([
                ("workspaceId", S.string("Required with an admin key.", nullable: true)),
                ("adNetworkId", S.string("As registered with Apple.", pattern: "^[A-Za-z0-9._-]{3,100}$")),
                ("privateKeyPem", orNull(S.string("The P-256 key Apple knows, PKCS#8 PEM; made here when absent.", maxLength: 8192))),
            ], required: ["adNetworkId"])),
            ("AdNetwork", S.object([
                ("id", S.string("Id (adn_…).", pattern: idPattern)), ("workspaceId", S.string("Workspace.", pattern: idPattern)),
                ("adNetworkId", text("Ad network id.")), ("publicKey", text("SubjectPublicKeyInfo, base64: what Apple needs.")),
                ("createdAt", S.timestamp),
            ], required: ["id", "workspaceId", "adNetworkId", "publicKey", "createdAt"])),
            ("AdNetworkPage", S.page(of: "AdNetwork")),
            ("ImpressionRecord", S.object([
                ("appId", S.string("App.", minLength: 1)), ("ip", S.string("The device's numeric address.", minLength: 2, maxLength: 45)),
                ("campaign", orNull(S.string("Campaign (the source identifier by default).", minLength: 1, maxLength: 100))),
            ], required: ["appId", "ip"])),
            ("SignImpressionRequest", S.object([
                ("format", S.enumeration(AdNetworks.formats, "What to sign.")),
                ("sourceIdentifier", integer("Up to four digits.", 0, 9999)),
                ("advertisedItemId", appStoreId),
                ("publisherItemId", .object([("type", ["integer", "null"]), ("minimum", 0), ("description", "The app showing the ad; 0 while testing.")])),
                ("impressionId", orNull(S.string("A UUID; made here when absent.", maxLength: 36))),
                ("timestamp", .object([("type", ["integer", "null"]), ("description", "Milliseconds since 1970, within a day of now.")])),
                ("fidelityType", .object([("type", ["integer", "null"]), ("enum", [0, 1, .null]), ("description", "1 StoreKit-rendered, 0 view-through.")])),
                ("eligibleForReengagement", .object([("type", ["boolean", "null"])])),
                ("record", orNull(S.ref("ImpressionRecord"))),
            ], required: ["format", "sourceIdentifier", "advertisedItemId"])),
            ("SignedImpression", S.object([
                ("format", text("What was signed.")), ("adNetworkId", text("Ad network.")), ("impressionId", text("The impression's UUID.")),
                ("timestamp", .object([("type", "integer")])), ("sourceIdentifier", count), ("advertisedItemId", count),
                ("publisherItemId", count), ("fidelityType", count), ("jws", text("AdAttributionKit compact JWS.")),
                ("signature", text("SKAdNetwork signature, base64 DER.")), ("signedMessage", text("The exact string signed.")),
                ("recordedImpressionId", text("The impression recorded for view-through matching.")),
            ], required: ["format", "adNetworkId", "impressionId", "timestamp", "sourceIdentifier", "advertisedItemId", "publisherItemId", "fidelityType"])),
        ]
    }
}
