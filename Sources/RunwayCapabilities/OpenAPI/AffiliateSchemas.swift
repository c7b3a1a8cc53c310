import LinkRunwayAPI
import RunwayJSON
import RunwayKit

/// The component schemas of affiliates, App Store notifications and the ledger.
extension Schemas {
    private typealias S = JSONSchema

    static var affiliateSchemas: [(String, JSONValue)] {
        let id = S.string("Id.", pattern: idPattern)
        let text = { (description: String) in S.string(description) }
        let integer = JSONValue.object([("type", "integer")])
        let boolean = JSONValue.object([("type", "boolean")])
        let currency = S.string("ISO 4217.", pattern: "^[A-Z]{3}$")
        let statuses = ["ok", "trial", "duplicate", "unattributed", "ignored", "ignored_non_production"]
        let commission = S.object([
            ("kind", S.enumeration(["percent", "fixed"], "Percentage of the customer price, or a fixed amount.")),
            ("basisPoints", .object([("type", ["integer", "null"]), ("minimum", 1), ("maximum", 10000), ("description", "For percent: 3000 is 30%.")])),
            ("amount", .object([("type", ["integer", "null"]), ("minimum", 1), ("description", "For fixed: minor units.")])),
            ("currency", orNull(currency)),
            ("duration", S.enumeration(["first", "months", "lifetime"], "Which payments earn.")),
            ("months", .object([("type", ["integer", "null"]), ("minimum", 1), ("maximum", 120)])),
        ], required: ["kind", "duration"])
        return [
            ("Affiliate", S.object([
                ("id", id), ("workspaceId", id), ("name", text("Name.")), ("externalId", text("Your reference.")), ("createdAt", S.timestamp),
            ], required: ["id", "workspaceId", "name", "createdAt"])),
            ("AffiliatePage", S.page(of: "Affiliate")),
            ("CreateAffiliateRequest", S.object([
                ("workspaceId", S.string("Required with an admin key.", nullable: true)),
                ("name", S.string("1 to 100 characters.", minLength: 1, maxLength: 100)),
                ("externalId", orNull(S.string("Your reference, 1 to 128 characters.", minLength: 1, maxLength: 128))),
            ], required: ["name"])),
            ("CommissionRule", commission),
            ("AffiliateProgram", S.object([
                ("id", id), ("workspaceId", id), ("appId", id), ("name", text("Name.")), ("commission", S.ref("CommissionRule")),
                ("holdDays", integer), ("offerCode", text("Offer code.")), ("deferredMinutes", integer), ("createdAt", S.timestamp),
            ], required: ["id", "workspaceId", "appId", "name", "commission", "holdDays", "deferredMinutes", "createdAt"])),
            ("AffiliateProgramPage", S.page(of: "AffiliateProgram")),
            ("CreateProgramRequest", S.object([
                ("appId", S.string("The app.", minLength: 1)), ("name", S.string("1 to 100 characters.", minLength: 1, maxLength: 100)),
                ("commission", S.ref("CommissionRule")),
                ("holdDays", .object([("type", ["integer", "null"]), ("minimum", 0), ("maximum", 365), ("description", "Default 30.")])),
                ("offerCode", orNull(S.string("Letters and digits.", pattern: "^[A-Za-z0-9]{1,64}$"))),
                ("deferredMinutes", .object([("type", ["integer", "null"]), ("minimum", 1), ("maximum", 10080), ("description", "Default 60.")])),
            ], required: ["appId", "name", "commission"])),
            ("AffiliateCode", S.object([
                ("code", text("Upper case.")), ("affiliateId", id), ("programId", id), ("createdAt", S.timestamp),
            ], required: ["code", "affiliateId", "programId", "createdAt"])),
            ("CreateAffiliateCodeRequest", S.object([
                ("programId", S.string("The program.", minLength: 1)),
                ("code", orNull(S.string("3 to 32 letters, digits, - or _ (case-insensitive).", pattern: "^[A-Za-z0-9_-]{3,32}$"))),
            ], required: ["programId"])),
            ("CreateAffiliateLinkRequest", S.object([
                ("programId", S.string("The program.", minLength: 1)), ("path", orNull(S.string("A custom path.", minLength: 1, maxLength: 200))),
            ], required: ["programId"])),
            ("AppStoreSurface", S.object([
                ("id", id), ("appId", id), ("environment", S.enumeration(["production", "sandbox"], "Which notifications it takes.")),
                ("notificationPath", text("For App Store Connect.")), ("forwardingPath", text("For your forwarder.")), ("createdAt", S.timestamp),
            ], required: ["id", "appId", "environment", "notificationPath", "forwardingPath", "createdAt"])),
            ("AppStoreSurfaceList", S.object([("items", S.array(S.ref("AppStoreSurface"), "Surfaces."))], required: ["items"])),
            ("CreateSurfaceRequest", S.object([("environment", S.enumeration(["production", "sandbox"], "Which notifications it takes."))],
                                              required: ["environment"])),
            ("CreatedSurface", S.object([
                ("surface", S.ref("AppStoreSurface")), ("forwardingSecret", S.string("Signs forwards; shown only here.", pattern: "^lrfs_[0-9a-f]{64}$")),
            ], required: ["surface", "forwardingSecret"])),
            ("BindRequest", S.object([
                ("signedClickId", orNull(S.string("From an affiliate link.", maxLength: 1024))),
                ("refCode", orNull(S.string("An affiliate's code.", maxLength: 64))),
                ("installId", orNull(S.string("The SDK's install id.", pattern: "^[0-9A-Za-z-]{1,64}$"))),
                ("attestation", orNull(S.string("An App Attest token.", maxLength: 1024))),
            ], required: [])),
            ("DeferredBindRequest", S.object([
                ("surfaceId", S.string("The app's App Store surface.", minLength: 1)),
                ("installId", orNull(S.string("The SDK's install id.", pattern: "^[0-9A-Za-z-]{1,64}$"))),
                ("attestation", orNull(S.string("An App Attest token.", maxLength: 1024))),
            ], required: ["surfaceId"])),
            ("BindResponse", S.object([
                ("appAccountToken", S.string("A UUID to set on the StoreKit 2 purchase.", format: "uuid")), ("offerCode", text("The program's offer.")),
            ], required: ["appAccountToken"])),
            ("AppStoreNotificationRequest", S.object([("signedPayload", S.string("Apple's JWS, verbatim.", minLength: 1))], required: ["signedPayload"])),
            ("AppStoreNotificationResult", S.object([
                ("status", S.enumeration(statuses, "What happened.")), ("notificationUUID", text("Apple's UUID.")),
                ("notificationType", text("Apple's type.")), ("amount", integer), ("currency", currency),
            ], required: ["status"])),
            ("CurrencyBalance", S.object([
                ("currency", currency), ("pending", integer), ("payable", integer), ("paid", integer), ("test", boolean),
            ], required: ["currency", "pending", "payable", "paid", "test"])),
            ("AffiliateBalance", S.object([("affiliateId", id), ("balances", S.array(S.ref("CurrencyBalance"), "Per currency."))],
                                          required: ["affiliateId", "balances"])),
            ("LedgerEntry", S.object([
                ("account", S.enumeration([Ledger.expense, Ledger.pending, Ledger.payable, Ledger.payouts], "Account.")), ("amount", integer),
            ], required: ["account", "amount"])),
            ("LedgerPosting", S.object([
                ("id", id), ("kind", S.enumeration(["accrual", "release", "clawback", "reaccrual", "payout", "duplicate_reversal"], "Kind.")), ("affiliateId", id),
                ("programId", id), ("currency", currency), ("test", boolean), ("notificationUUID", text("Apple's UUID.")),
                ("transactionId", text("Apple's transaction.")), ("reference", text("Payout reference.")), ("createdAt", S.timestamp),
                ("entries", S.array(S.ref("LedgerEntry"), "Balanced entries.", minItems: 2)),
            ], required: ["id", "kind", "affiliateId", "currency", "test", "createdAt", "entries"])),
            ("LedgerPostingPage", S.page(of: "LedgerPosting")),
            ("CreatePayoutRequest", S.object([
                ("currency", currency), ("amount", .object([("type", ["integer", "null"]), ("minimum", 1)])),
                ("reference", orNull(S.string("Your payment reference.", minLength: 1, maxLength: 128))),
            ], required: ["currency"])),
            ("PayoutRow", S.object([
                ("affiliateId", id), ("name", text("Name.")), ("externalId", text("Your reference.")), ("currency", currency),
                ("pending", integer), ("payable", integer), ("paid", integer), ("commissions", integer),
            ], required: ["affiliateId", "name", "currency", "pending", "payable", "paid", "commissions"])),
            ("PayoutReport", S.object([("rows", S.array(S.ref("PayoutRow"), "Per affiliate and currency."))], required: ["rows"])),
        ]
    }
}
