import Foundation
import LinkRunwayAPI
import RunwayHTTP
import RunwayJSON
import RunwayKit
import RunwayStore

/// Conversion schemas: which events set which fine and coarse values. Every change is a new version and old versions
/// are kept, so a postback decodes with the version its values were set under.
enum ConversionSchemas {
    static let coarseValues: Set<String> = ["low", "medium", "high"]
    /// How long an app may keep `GET /v1/mobile/config` (the SDK refreshes once a day).
    static let refreshSeconds = 86_400
    /// A postback decodes with the newest version at least this old when it arrives: Apple sends a postback 24 to 48
    /// hours after its window closes, and the SDK may hold a schema for a day.
    static let decodingDelayMilliseconds: Int64 = 48 * 3_600_000

    /// Checks a schema; errors name the field (`rules[2].fine`).
    static func validate(_ request: ConversionSchemaRequest) throws -> (rules: [ConversionRule], laterWindows: [LaterWindow]) {
        guard !request.rules.isEmpty, request.rules.count <= 128 else { throw RequestError.invalidField("rules", "must hold 1 to 128 rules") }
        for (i, rule) in request.rules.enumerated() {
            let field = "rules[\(i)]"
            try check(type: rule.type, name: rule.name, minAmount: rule.minAmount, field: field)
            guard (0...63).contains(rule.fine) else { throw RequestError.invalidField(field + ".fine", "must be 0 to 63") }
            if let coarse = rule.coarse, !coarseValues.contains(coarse) {
                throw RequestError.invalidField(field + ".coarse", "must be low, medium or high")
            }
        }
        let windows = request.laterWindows ?? []
        guard Set(windows.map(\.window)).count == windows.count else { throw RequestError.invalidField("laterWindows", "names a window twice") }
        for (w, window) in windows.enumerated() {
            guard window.window == 2 || window.window == 3 else {
                throw RequestError.invalidField("laterWindows[\(w)].window", "must be 2 or 3 (the first window uses rules)")
            }
            guard !window.rules.isEmpty, window.rules.count <= 128 else {
                throw RequestError.invalidField("laterWindows[\(w)].rules", "must hold 1 to 128 rules")
            }
            for (i, rule) in window.rules.enumerated() {
                let field = "laterWindows[\(w)].rules[\(i)]"
                try check(type: rule.type, name: rule.name, minAmount: rule.minAmount, field: field)
                guard coarseValues.contains(rule.coarse) else { throw RequestError.invalidField(field + ".coarse", "must be low, medium or high") }
            }
        }
        return (request.rules, windows.sorted { $0.window < $1.window })
    }

    private static func check(type: String, name: String?, minAmount: Int64?, field: String) throws {
        guard Events.types.contains(type) else {
            throw RequestError.invalidField(field + ".type", "must be one of \(Events.types.sorted().joined(separator: ", "))")
        }
        if let name, !(1...100).contains(name.count) { throw RequestError.invalidField(field + ".name", "must be 1 to 100 characters") }
        if let minAmount, minAmount < 0 { throw RequestError.invalidField(field + ".minAmount", "must not be negative") }
    }

    /// The stored document: rules and later windows as JSON.
    static func document(rules: [ConversionRule], laterWindows: [LaterWindow]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(ConversionSchemaRequest(rules: rules, laterWindows: laterWindows)), as: UTF8.self)
    }

    /// The version a postback received at `receivedAt` decodes with: the newest created `decodingDelay` before it,
    /// else the oldest there is.
    static func inForce(_ db: any SQLExecutor, appId: String, receivedAt: Int64) throws -> ConversionSchema? {
        try PostbackQueries.schemaInForce(db, appId: appId, cutoff: receivedAt - decodingDelayMilliseconds)
    }

    /// What a postback's values stood for: rules with its fine value, or with its coarse value (in the window's own
    /// mapping when it has one). Empty when the value matches no rule; nil when there is no value to decode.
    static func decode(fine: Int?, coarse: String?, window: Int, schema: ConversionSchema) -> [DecodedConversion]? {
        if let fine {
            return schema.rules.filter { $0.fine == fine }.map { DecodedConversion(type: $0.type, name: $0.name, minAmount: $0.minAmount) }
        }
        guard let coarse else { return nil }
        if window > 1, let mapping = schema.laterWindows.first(where: { $0.window == window }) {
            return mapping.rules.filter { $0.coarse == coarse }.map { DecodedConversion(type: $0.type, name: $0.name, minAmount: $0.minAmount) }
        }
        return schema.rules.filter { $0.coarse == coarse }.map { DecodedConversion(type: $0.type, name: $0.name, minAmount: $0.minAmount) }
    }
}
