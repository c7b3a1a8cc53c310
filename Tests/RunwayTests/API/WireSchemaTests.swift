import Foundation
import LinkRunwayAPI
import RunwayHTTP
import RunwayJSON
@testable import RunwayCapabilities
@testable import RunwayKit
@testable import RunwayServer
import RunwayTestKit
import Testing

/// The OpenAPI component schemas are derived from the wire types; these tests hold the derivation and the types' notes
/// to the types themselves. `OpenAPITests` checks real answers against the result.
@Suite("Schemas from wire types")
struct WireSchemaTests {
    @Test("every schema the routes name derives without problems, and one name is one schema")
    func routesDeriveCleanly() async throws {
        let server = try await TestServer.start()
        var seen: [String: JSONValue] = [:]
        for route in server.application.router.routes {
            let references = [route.operation.requestSchema] + route.operation.responses.map(\.schema)
            for reference in references.compactMap({ $0 }) {
                #expect(reference.problems.isEmpty, "\(route.label): \(reference.problems)")
                for (name, schema) in reference.components {
                    if let earlier = seen[name] { #expect(earlier == schema, "two schemas named \(name)") }
                    seen[name] = schema
                }
            }
        }
        #expect(seen.count > 100)
        await server.stop()
    }

    @Test("a request body's optional fields may be null; an answer's are only left out")
    func requestsAcceptNull() async throws {
        let server = try await TestServer.start()
        for route in server.application.router.routes {
            guard let request = route.operation.requestSchema else { continue }
            let schema = try #require(request.components.first { $0.0 == request.name }?.1)
            let required = Set(schema["required"]?.arrayValue?.compactMap(\.stringValue) ?? [])
            for (key, property) in schema["properties"]?.objectValue ?? [] where !required.contains(key) {
                #expect(Self.allowsNull(property), "\(request.name).\(key) is optional but does not allow null")
            }
        }
        let link = SchemaReference.of(Link.self).components[0].1
        #expect(link["properties"]?["appId"]?["type"] == "string")
        #expect(link["required"]?.arrayValue?.contains("appId") == false)
        await server.stop()
    }

    @Test("the probe reads a custom init(from:): required, optional, nullable, nested containers, lists and maps")
    func customDecoding() throws {
        let fields = try WireShape.fields(of: CustomlyDecoded.self)
        #expect(fields.map(\.key) == ["name", "count", "nickname", "tags", "scores", "extra", "inner"])
        #expect(fields.map(\.required) == [true, true, false, true, false, false, true])
        guard case .string = fields[0].shape, case .integer = fields[1].shape, case .list(.string) = fields[3].shape,
              case .map(.number) = fields[4].shape, case .anyJSON = fields[5].shape,
              case .undescribed(_, let inner) = fields[6].shape else {
            Issue.record("unexpected shapes: \(fields.map(\.shape))")
            return
        }
        #expect(inner.map(\.key) == ["flag"])
        let kinds = try WireShape.fields(of: WhoAmI.self)
        guard case .values(let values) = kinds[1].shape else { Issue.record("KeyKind is not an enumeration"); return }
        #expect(values == KeyKind.allCases.map(\.rawValue))
    }

    @Test("a note for a key the type lacks, a limit that does not fit, and an undescribed type are reported")
    func staleNotesReported() {
        let problems = SchemaReference.of(Misdescribed.self).problems
        #expect(problems.contains { $0.contains("\"renamed\"") })
        #expect(problems.contains { $0.contains("count: pattern does not fit") })
        #expect(problems.contains { $0.contains("Plain is not a DescribedWireType") })
        #expect(problems.count == 3)
    }

    @Test("the ledger's accounts are the ones the wire type lists")
    func ledgerAccounts() {
        #expect(LedgerEntry.accounts == Ledger.Account.allCases.map(\.rawValue))
    }

    static func allowsNull(_ schema: JSONValue) -> Bool {
        if schema["type"] == nil, schema["$ref"] == nil, schema["anyOf"] == nil { return true }  // any JSON
        if schema["type"]?.arrayValue?.contains("null") == true { return true }
        return schema["anyOf"]?.arrayValue?.contains(.object([("type", "null")])) == true
    }
}

/// Decodes by hand, the ways a custom `init(from:)` can.
private struct CustomlyDecoded: Decodable {
    enum Keys: String, CodingKey { case name, count, nickname, tags, scores, extra, inner, flag }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        _ = try container.decode(String.self, forKey: .name)
        _ = try container.decode(Int.self, forKey: .count)
        if try !container.decodeNil(forKey: .nickname) { _ = try container.decode(String.self, forKey: .nickname) }
        _ = try container.decode([String].self, forKey: .tags)
        _ = try container.decodeIfPresent([String: Double].self, forKey: .scores)
        _ = try container.decodeIfPresent(JSONLiteral.self, forKey: .extra)
        let inner = try container.nestedContainer(keyedBy: Keys.self, forKey: .inner)
        _ = try inner.decode(Bool.self, forKey: .flag)
    }
}

private struct Plain: Decodable {
    var value: String
}

private struct Misdescribed: Decodable, DescribedWireType {
    var count: Int
    var plain: Plain

    static let notes: [String: FieldNote] = ["renamed": FieldNote("Gone."), "count": FieldNote(pattern: "^[0-9]+$")]
}
