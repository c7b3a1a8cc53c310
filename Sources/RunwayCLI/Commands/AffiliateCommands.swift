import AppleFormats
import Foundation
import LinkRunwayAPI
import RunwayJSON

/// Affiliates, programs, codes, links, App Store surfaces, balances, payouts, and checking App Store signed data.
enum AffiliateCommands {
    static let jsonFlag = TenancyCommands.jsonFlag

    static let create: Command = Command(["affiliate", "create"], summary: "Add an affiliate.", options: [
        .required("--name", "name", "Name."), .value("--external-id", "id", "Your reference for them."),
        .value("--workspace", "id", "Workspace (default $LINKRUNWAY_WORKSPACE, else the only one the key sees)."), jsonFlag,
    ] + APIClient.options) { a, c in
        let client = try APIClient(a, c)
        let affiliate = try await client.post("/v1/affiliates", CreateAffiliateRequest(workspaceId: try await client.workspace(a, c), name: try a.required("--name"),
                                                                                       externalId: a.value("--external-id")), as: Affiliate.self)
        c.output(a.flag("--json") ? try Output.json(affiliate) : "Created affiliate \(affiliate.id) (\(affiliate.name))")
    }

    static let list: Command = Command(["affiliate", "list"], summary: "List affiliates.", options: [
        .value("--workspace", "id", "Only this workspace's."), jsonFlag,
    ] + APIClient.options) { a, c in
        let path = "/v1/affiliates" + (a.value("--workspace").map { "?workspaceId=\(APIClient.escape($0))" } ?? "")
        let affiliates = try await APIClient(a, c).all(path, as: Affiliate.self)
        c.output(a.flag("--json") ? try Output.json(affiliates)
                 : Output.table(["ID", "NAME", "EXTERNAL ID", "CREATED"], affiliates.map { [$0.id, $0.name, $0.externalId ?? "", $0.createdAt] }))
    }

    static let program: Command = Command(["affiliate", "program"], summary: "Add an affiliate program to an app.", options: [
        .required("--app", "id", "The app."), .required("--name", "name", "Name."),
        .value("--percent", "n", "Commission: this percentage of the customer price (e.g. 30 or 12.5)."),
        .value("--fixed", "amount", "Commission: this many minor units per payment (with --currency)."), .value("--currency", "code", "For --fixed."),
        .value("--duration", "kind", "first, months or lifetime (default lifetime)."), .value("--months", "n", "For --duration months."),
        .value("--hold-days", "n", "Days before a commission is payable (default 30)."), .value("--offer-code", "code", "A subscription offer code."),
        .value("--deferred-minutes", "n", "Window for deferred binds (default 60)."),
        .flag("--consumer-stores-only", "Pay nothing for purchases whose install's app transactions named only education or enterprise stores."), jsonFlag,
    ] + APIClient.options) { a, c in
        func integer(_ option: String) throws -> Int? {
            guard let text = a.value(option) else { return nil }
            guard let n = Int(text) else { throw UsageError("\(option) must be a whole number") }
            return n
        }
        let rule: CommissionRule
        switch (a.value("--percent"), a.value("--fixed")) {
        case (let percent?, nil):
            guard let value = Decimal(string: percent) else { throw UsageError("--percent must be a number") }
            rule = CommissionRule(kind: "percent", basisPoints: NSDecimalNumber(decimal: value * 100).intValue, duration: a.value("--duration") ?? "lifetime",
                                  months: try integer("--months"))
        case (nil, let fixed?):
            guard let amount = Int64(fixed) else { throw UsageError("--fixed must be a whole number of minor units") }
            rule = CommissionRule(kind: "fixed", amount: amount, currency: try a.required("--currency"), duration: a.value("--duration") ?? "lifetime",
                                  months: try integer("--months"))
        default:
            throw UsageError("give --percent or --fixed")
        }
        let request = CreateProgramRequest(appId: try a.required("--app"), name: try a.required("--name"), commission: rule,
                                           holdDays: try integer("--hold-days"), offerCode: a.value("--offer-code"),
                                           deferredMinutes: try integer("--deferred-minutes"),
                                           consumerStoresOnly: a.flag("--consumer-stores-only") ? true : nil)
        let created = try await APIClient(a, c).post("/v1/affiliate-programs", request, as: AffiliateProgram.self)
        c.output(a.flag("--json") ? try Output.json(created) : "Created program \(created.id) (\(created.name)), hold \(created.holdDays) days")
    }

    static let code: Command = Command(["affiliate", "code"], summary: "Give an affiliate a code for a program.", arguments: "<affiliate-id>", options: [
        .required("--program", "id", "The program."), .value("--code", "code", "The code (made up when absent)."), jsonFlag,
    ] + APIClient.options) { a, c in
        guard a.positionals.count == 1 else { throw UsageError("give one affiliate id") }
        let created = try await APIClient(a, c).post("/v1/affiliates/\(APIClient.escape(a.positionals[0]))/codes",
                                                     CreateAffiliateCodeRequest(programId: try a.required("--program"), code: a.value("--code")),
                                                     as: AffiliateCode.self)
        c.output(a.flag("--json") ? try Output.json(created) : created.code)
    }

    static let link: Command = Command(["affiliate", "link"], summary: "Make a link that carries an affiliate.", arguments: "<affiliate-id>", options: [
        .required("--program", "id", "The program."), .value("--path", "path", "A custom path."), jsonFlag,
    ] + APIClient.options) { a, c in
        guard a.positionals.count == 1 else { throw UsageError("give one affiliate id") }
        let created = try await APIClient(a, c).post("/v1/affiliates/\(APIClient.escape(a.positionals[0]))/links",
                                                     CreateAffiliateLinkRequest(programId: try a.required("--program"), path: a.value("--path")), as: Link.self)
        c.output(a.flag("--json") ? try Output.json(created) : created.url)
    }

    static let balance: Command = Command(["affiliate", "balance"], summary: "An affiliate's pending, payable and paid commissions.", arguments: "<affiliate-id>",
                                 options: [jsonFlag] + APIClient.options) { a, c in
        guard a.positionals.count == 1 else { throw UsageError("give one affiliate id") }
        let balance = try await APIClient(a, c).get("/v1/affiliates/\(APIClient.escape(a.positionals[0]))/balance", as: AffiliateBalance.self)
        c.output(a.flag("--json") ? try Output.json(balance) : Output.table(["PENDING", "PAYABLE", "PAID", "MODE"], balance.balances.map {
            [Currency.text(minorUnits: $0.pending, currency: $0.currency), Currency.text(minorUnits: $0.payable, currency: $0.currency),
             Currency.text(minorUnits: $0.paid, currency: $0.currency), $0.test ? "test" : "live"]
        }))
    }

    static let payout: Command = Command(["affiliate", "payout"], summary: "Record a payout from an affiliate's payable balance.", arguments: "<affiliate-id>", options: [
        .required("--currency", "code", "The currency."), .value("--amount", "n", "Minor units (default: all that is payable)."),
        .value("--reference", "text", "Your payment reference."), jsonFlag,
    ] + APIClient.options) { a, c in
        guard a.positionals.count == 1 else { throw UsageError("give one affiliate id") }
        let amount = try a.value("--amount").map { text -> Int64 in
            guard let n = Int64(text) else { throw UsageError("--amount must be a whole number of minor units") }
            return n
        }
        let posting = try await APIClient(a, c).post("/v1/affiliates/\(APIClient.escape(a.positionals[0]))/payouts",
                                                     CreatePayoutRequest(currency: try a.required("--currency"), amount: amount, reference: a.value("--reference")),
                                                     as: LedgerPosting.self)
        c.output(a.flag("--json") ? try Output.json(posting) : "Paid \(Currency.text(minorUnits: posting.entries.first?.amount ?? 0, currency: posting.currency)) (\(posting.id))")
    }

    static let payoutsReport: Command = Command(["report", "payouts"], summary: "Every affiliate's live balances, per currency.", options: [
        .value("--workspace", "id", "Workspace (default $LINKRUNWAY_WORKSPACE, else the only one the key sees)."), .value("--currency", "code", "Only this currency."), .flag("--csv", "Print CSV."), jsonFlag,
    ] + APIClient.options) { a, c in
        let client = try APIClient(a, c)
        let path = try await client.reportPath("/v1/reports/payouts", a, c, extra: [("--currency", "currency")])
        if a.flag("--csv") { return c.output(String(decoding: try await client.raw("GET", path, accept: "text/csv"), as: UTF8.self)) }
        let report = try await client.get(path, as: PayoutReport.self)
        c.output(a.flag("--json") ? try Output.json(report) : Output.table(["AFFILIATE", "NAME", "PENDING", "PAYABLE", "PAID"], report.rows.map {
            [$0.affiliateId, $0.name, Currency.text(minorUnits: $0.pending, currency: $0.currency),
             Currency.text(minorUnits: $0.payable, currency: $0.currency), Currency.text(minorUnits: $0.paid, currency: $0.currency)]
        }))
    }

    static let surface: Command = Command(["app-store", "surface"], summary: "Create where an app's App Store notifications arrive; prints the forwarding secret once.",
                                 options: [.required("--app", "id", "The app."), .required("--environment", "env", "production or sandbox."), jsonFlag] + APIClient.options) { a, c in
        let created = try await APIClient(a, c).post("/v1/apps/\(APIClient.escape(try a.required("--app")))/app-store-surfaces",
                                                     CreateSurfaceRequest(environment: try a.required("--environment")), as: CreatedSurface.self)
        c.output(a.flag("--json") ? try Output.json(created) : """
            Surface \(created.surface.id) (\(created.surface.environment))
            App Store Connect notification URL: <your server>\(created.surface.notificationPath)
            Forwarding URL: <your server>\(created.surface.forwardingPath)
            Forwarding secret (shown only now): \(created.forwardingSecret)
            """)
    }

    /// What `verify app-store` prints.
    struct Verdict: Encodable {
        let valid: Bool
        var status: String
        var reason: String?
        var payload: JSONValue?
        /// What the data was checked as.
        var kind: String?
    }

    /// The four kinds of App Store signed data, each checked by the verifier call Apple's libraries have for it.
    enum SignedDataKind: String {
        case notification, transaction, renewalInfo = "renewal-info", appTransaction = "app-transaction"

        /// Recognised by the fields only each kind has: renewal info carries no bundle id at all.
        init(recognising payload: JSONValue?) {
            if payload?["notificationType"] != nil { self = .notification }
            else if payload?["receiptType"] != nil { self = .appTransaction }
            else if payload?["bundleId"] == nil, payload?.objectValue != nil { self = .renewalInfo }
            else { self = .transaction }
        }
    }

    static let verify: Command = Command(["verify", "app-store"], summary: "Check App Store signed data (a notification, transaction, renewal info or app transaction) offline.",
                                arguments: "<file>", options: [
        .value("--bundle-id", "id", "The app's bundle id (required, except for renewal info, which names no app)."),
        .required("--environment", "env", "Production, Sandbox or Xcode (required)."),
        .value("--app-apple-id", "id", "The app's Apple id (checked in Production)."),
        .value("--kind", "kind", "notification, transaction, renewal-info or app-transaction (default: recognised from the payload)."),
        .value("--root", "file", "The root certificate, DER or PEM (default LINKRUNWAY_APP_STORE_ROOT, else Apple Root CA - G3, built in)."),
        .value("--at", "unix", "Check at this time when the payload has no signedDate (default now)."),
    ], details: """
        The file holds a JWS, or a JSON body {"signedPayload": …}. Its kind is recognised as Apple's verifier would be
        called for it: a notification has notificationType, an app transaction receiptType, a transaction bundleId, and
        signed renewal info none of them (it names no app, so only its signature, chain and environment are checked).
        Prints {valid, status, reason, payload}; exits 1 when not valid.
        """) { a, c in
        guard a.positionals.count == 1 else { throw UsageError("give one file") }
        guard let environment = AppStoreVerifier.Environment(rawValue: try a.required("--environment")) else {
            throw UsageError("--environment must be Production, Sandbox or Xcode")
        }
        let appAppleId = try a.value("--app-apple-id").map { text -> Int64 in
            guard let n = Int64(text) else { throw UsageError("--app-apple-id must be a number") }
            return n
        }
        let now = try a.value("--at").map { text -> Date in
            guard let seconds = Double(text) else { throw UsageError("--at must be unix seconds") }
            return Date(timeIntervalSince1970: seconds)
        } ?? Date()
        var root = AppleRoots.appleRootCAG3
        if let rootPath = a.value("--root") ?? c.environment["LINKRUNWAY_APP_STORE_ROOT"] {
            guard let rootData = FileManager.default.contents(atPath: rootPath), let named = AppStoreVerifier.certificate(file: Array(rootData)) else {
                throw CommandFailure("\(rootPath) is not a certificate")
            }
            root = named
        }
        guard let data = FileManager.default.contents(atPath: a.positionals[0]) else { throw CommandFailure("cannot read \(a.positionals[0])") }
        var text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if let body = try? JSONParser().parse(text), let signed = body["signedPayload"]?.stringValue { text = signed }
        let payload = (try? CompactJWS.parse(text))?.payload
        let kind = try a.value("--kind").map { name -> SignedDataKind in
            guard let kind = SignedDataKind(rawValue: name) else { throw UsageError("--kind must be notification, transaction, renewal-info or app-transaction") }
            return kind
        } ?? SignedDataKind(recognising: payload)
        let bundleId = a.value("--bundle-id")
        guard bundleId != nil || kind == .renewalInfo else { throw UsageError("give --bundle-id (only renewal info is checked without one)") }
        let verifier = AppStoreVerifier(root: root)
        let failure: AppStoreVerifier.Failure?
        switch kind {
        case .notification:
            failure = verifier.verifyNotification(text, bundleId: bundleId ?? "", appAppleId: appAppleId, environment: environment, now: now).failed
        case .transaction:
            failure = verifier.verifyTransaction(text, bundleId: bundleId ?? "", environment: environment, now: now).failed
        case .renewalInfo:
            failure = verifier.verifyRenewalInfo(text, environment: environment, now: now).failed
        case .appTransaction:
            failure = verifier.verifyAppTransaction(text, bundleId: bundleId ?? "", appAppleId: appAppleId, environment: environment, now: now).failed
        }
        var verdict = Verdict(valid: failure == nil, status: failure?.status ?? "VALID", reason: failure?.description,
                              payload: failure == nil ? payload : nil)
        verdict.kind = kind.rawValue
        c.output(try Output.json(verdict))
        if !verdict.valid { throw CommandFailure("the signed data does not verify (\(verdict.status))") }
    }
}

private extension Result {
    /// The failure, or nil on success.
    var failed: Failure? {
        if case .failure(let failure) = self { return failure }
        return nil
    }
}
