import AppleFormats
import Foundation
import LinkRunwayAPI
import RunwayCrypto
import RunwayJSON

/// Conversion schemas, postback reports, postback verification and the ad-network side.
enum PostbackCommands {
    static let jsonFlag = TenancyCommands.jsonFlag

    /// What `verify skadnetwork` and `verify adattributionkit` print.
    struct PostbackReport: Encodable {
        let valid: Bool
        let framework: String
        var version: String?
        var kid: String?
        var environment: String
        /// SKAdNetwork: the exact string verified. AdAttributionKit: the JWS header.
        var signedMessage: String?
        var reason: String?
        var detail: String?
        var adNetworkId: String?
        var transactionId: String?
        var didWin: Bool?
        var fineValue: Int?
        var coarseValue: String?
    }

    static func verdictCommand(_ words: [String], framework: PostbackVerdict.Framework) -> Command {
        Command(words, summary: "Check a \(framework == .skadnetwork ? "SKAdNetwork" : "AdAttributionKit") postback with Apple's keys.",
                arguments: "<postback.json>",
                options: framework == .adattributionkit ? [.flag("--allow-development", "Accept Apple's development keys.")] : [],
                details: """
            Prints a JSON verdict: valid or not, the \(framework == .skadnetwork ? "version and the exact signed string" : "kid and the JWS header"),
            and the reason it failed. Exits 0 when valid, 1 when not.
            """) { arguments, context in
            guard arguments.positionals.count == 1 else { throw UsageError("give one postback file") }
            let path = arguments.positionals[0]
            guard let body = FileManager.default.contents(atPath: path) else { throw CommandFailure("cannot read \(path)") }
            let verdict = framework == .skadnetwork ? SKAdNetworkPostback.verify(Array(body))
                : AdAttributionKitPostback.verify(Array(body), allowDevelopment: arguments.flag("--allow-development"))
            let report = PostbackReport(valid: verdict.valid, framework: verdict.framework.rawValue, version: verdict.version, kid: verdict.kid,
                                        environment: verdict.environment, signedMessage: verdict.signedMessage, reason: verdict.reason,
                                        detail: verdict.detail, adNetworkId: verdict.fields.adNetworkId, transactionId: verdict.fields.transactionId,
                                        didWin: verdict.fields.didWin, fineValue: verdict.fields.fineValue, coarseValue: verdict.fields.coarseValue)
            context.output(try Output.json(report))
            if !verdict.valid { throw CommandFailure("the postback does not verify (\(verdict.reason ?? "invalid"))") }
        }
    }

    static let verifySKAdNetwork = verdictCommand(["verify", "skadnetwork"], framework: .skadnetwork)
    static let verifyAdAttributionKit = verdictCommand(["verify", "adattributionkit"], framework: .adattributionkit)

    static let keygen: Command = Command(["adnetwork", "keygen"], summary: "Make a P-256 key pair for signing impressions.", options: [
        .value("--out", "file", "Write the private key (PKCS#8 PEM) here, readable by you only; print it when absent."),
    ], details: "Prints the public key as base64 SubjectPublicKeyInfo: that is what you give Apple when you register.") { arguments, context in
        guard let key = PrivateKey.generateP256(), let pem = key.pem, let publicKey = key.publicKey else { throw CommandFailure("OpenSSL could not make a key") }
        if let out = arguments.value("--out") {
            guard !FileManager.default.fileExists(atPath: out) else { throw CommandFailure("\(out) exists; not overwriting a key") }
            guard FileManager.default.createFile(atPath: out, contents: Data(pem.utf8), attributes: [.posixPermissions: 0o600]) else {
                throw CommandFailure("cannot write \(out)")
            }
        } else {
            context.output(pem)
        }
        context.output("Public key (give this to Apple):\n\(Data(publicKey.spki).base64EncodedString())")
    }

    static let impressionSign: Command = Command(["impression", "sign"], summary: "Sign an ad impression with an ad network's key.", options: [
        .required("--format", "format", "adattributionkit (a compact JWS) or skadnetwork-4.0 (a signature for StoreKit)."),
        .required("--key", "file", "The ad network's P-256 private key (PEM)."),
        .required("--ad-network-id", "id", "Your ad network id, as registered with Apple (lower-case; capitals are refused)."),
        .value("--source-identifier", "n", "Up to four digits."),
        .value("--advertised-item-id", "id", "The advertised app's App Store id."),
        .value("--publisher-item-id", "id", "The app showing the ad (default 0, for testing)."),
        .value("--impression-id", "uuid", "Default: a new UUID."),
        .value("--timestamp", "ms", "Milliseconds since 1970 (default now)."),
        .value("--fidelity-type", "n", "1 StoreKit-rendered (default) or 0 view-through."),
        .flag("--re-engagement", "AdAttributionKit: the impression may drive re-engagement."),
    ]) { arguments, context in
        let format = try arguments.required("--format")
        guard ["adattributionkit", "skadnetwork-4.0"].contains(format) else { throw UsageError("--format must be adattributionkit or skadnetwork-4.0") }
        let keyPath = try arguments.required("--key")
        guard let pem = try? String(contentsOfFile: keyPath, encoding: .utf8), let key = PrivateKey.pem(pem), key.publicKey?.curve == "prime256v1" else {
            throw CommandFailure("\(keyPath) is not a P-256 private key in PEM")
        }
        func number(_ option: String, default value: Int64? = nil) throws -> Int64 {
            guard let text = arguments.value(option) else {
                if let value { return value }
                throw UsageError("\(option) is required")
            }
            guard let n = Int64(text), n >= 0 else { throw UsageError("\(option) must be a whole number") }
            return n
        }
        let source = try number("--source-identifier")
        guard source <= 9999 else { throw UsageError("--source-identifier has at most four digits") }
        let fidelity = try number("--fidelity-type", default: 1)
        guard fidelity <= 1 else { throw UsageError("--fidelity-type must be 0 or 1") }
        let impressionId = arguments.value("--impression-id") ?? UUID().uuidString
        guard UUID(uuidString: impressionId) != nil else { throw UsageError("--impression-id must be a UUID") }
        let adNetworkId = try arguments.required("--ad-network-id")
        // The same rule as POST /v1/ad-networks: Apple matches the kid in lower case only, so a JWS signed under
        // capitals would never count.
        if let problem = AdNetworkIdentifier.problem(adNetworkId) { throw UsageError("--ad-network-id \(problem)") }
        let impression = AdImpression(adNetworkId: adNetworkId, sourceIdentifier: Int(source),
                                      advertisedItemId: try number("--advertised-item-id"), publisherItemId: try number("--publisher-item-id", default: 0),
                                      impressionId: impressionId,
                                      timestamp: try number("--timestamp", default: Int64(Date().timeIntervalSince1970 * 1000)),
                                      fidelityType: Int(fidelity), eligibleForReengagement: arguments.flag("--re-engagement") ? true : nil)
        var signed = SignedImpression(format: format, adNetworkId: impression.adNetworkId, impressionId: impression.impressionId,
                                      timestamp: impression.timestamp, sourceIdentifier: impression.sourceIdentifier,
                                      advertisedItemId: impression.advertisedItemId, publisherItemId: impression.publisherItemId,
                                      fidelityType: impression.fidelityType)
        if format == "adattributionkit" {
            signed.jws = impression.signAdAttributionKit(with: key)
        } else {
            signed.signature = impression.signSKAdNetwork4(with: key)
            signed.signedMessage = impression.skAdNetwork4Message
        }
        context.output(try Output.json(signed))
    }

    static let rulesSet: Command = Command(["rules", "set"], summary: "Set an app's conversion schema from a JSON file (a new version).", options: [
        .required("--app", "id", "The app."), .required("--file", "file", "{\"rules\": [...], \"laterWindows\": [...]} (see docs/postbacks.md)."), jsonFlag,
    ] + APIClient.options) { a, c in
        let file = try a.required("--file")
        guard let data = FileManager.default.contents(atPath: file) else { throw CommandFailure("cannot read \(file)") }
        let request: ConversionSchemaRequest
        do {
            request = try StrictJSONDecoder().decode(ConversionSchemaRequest.self, from: Array(data))
        } catch {
            throw CommandFailure("\(file): \(error)")
        }
        let schema = try await APIClient(a, c).send("PUT", "/v1/apps/\(APIClient.escape(try a.required("--app")))/conversion-schema", request,
                                                    as: ConversionSchema.self)
        c.output(a.flag("--json") ? try Output.json(schema) : "Version \(schema.version) of \(schema.appId)'s conversion schema: \(schema.rules.count) rules")
    }

    static let rulesShow: Command = Command(["rules", "show"], summary: "Show an app's current conversion schema.", options: [
        .required("--app", "id", "The app."), jsonFlag,
    ] + APIClient.options) { a, c in
        let schema = try await APIClient(a, c).get("/v1/apps/\(APIClient.escape(try a.required("--app")))/conversion-schema", as: ConversionSchema.self)
        if a.flag("--json") { return c.output(try Output.json(schema)) }
        c.output("Version \(schema.version), \(schema.createdAt)")
        c.output(Output.table(["TYPE", "NAME", "MIN AMOUNT", "FINE", "COARSE", "LOCK"], schema.rules.map { rule in
            [rule.type, rule.name ?? "", rule.minAmount.map(String.init) ?? "", String(rule.fine), rule.coarse ?? "", rule.lockWindow == true ? "yes" : ""]
        }))
        for window in schema.laterWindows {
            c.output("\nWindow \(window.window)")
            c.output(Output.table(["TYPE", "NAME", "MIN AMOUNT", "COARSE", "LOCK"], window.rules.map { rule in
                [rule.type, rule.name ?? "", rule.minAmount.map(String.init) ?? "", rule.coarse, rule.lockWindow == true ? "yes" : ""]
            }))
        }
    }

    static let reportPostbacks: Command = Command(["report", "postbacks"], summary: "Postbacks, installs and conversion values, grouped.", options: [
        .value("--from", "time", "Start: a day (2026-11-01) or an ISO 8601 time (default 30 days ago)."), .value("--to", "time", "End: a day (2026-11-30, through its end) or an ISO 8601 time (default now)."),
        .value("--group-by", "key", "day, network, campaign, sourceIdentifier, window, value, conversion, tier, country, placement or framework."),
        .value("--app", "id", "Only this app."), .value("--workspace", "id", "Workspace (default $LINKRUNWAY_WORKSPACE, else the only one the key sees)."),
        .flag("--sandbox", "The sandbox view: only development postbacks (Apple's development keys or ad network), which the default view never counts."),
        .flag("--csv", "Print CSV."), jsonFlag,
    ] + APIClient.options) { a, c in
        let client = try APIClient(a, c)
        let base = try await client.reportPath("/v1/reports/postbacks", a, c)
        let path = a.flag("--sandbox") ? base + (base.contains("?") ? "&" : "?") + "environment=development" : base
        if a.flag("--csv") { return c.output(String(decoding: try await client.raw("GET", path, accept: "text/csv"), as: UTF8.self)) }
        let report = try await client.get(path, as: LinkRunwayAPI.PostbackReport.self)
        if a.flag("--json") { return c.output(try Output.json(report)) }
        c.output(Output.table([report.groupBy.uppercased(), "POSTBACKS", "INSTALLS", "RE-ENGAGEMENTS", "NON-WINNING", "WITHHELD", "INVALID", "DUPLICATES",
                               "NO COUNTRY", "NO MARKETPLACE", "SHORT SOURCE ID", "NO PUBLISHER"],
                              report.rows.map { row in
            let missing = row.missingFields
            return [row.displayKey]
                + [row.postbacks, row.installs, row.reengagements, row.nonWinning, row.withheld, row.invalid, row.duplicates].map(String.init)
                + [missing.countryCode, missing.marketplaceIdentifier, missing.sourceIdentifierDigits, missing.publisher].map(\.summary)
        }))
    }
}
