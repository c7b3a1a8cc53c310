import Foundation
import LinkRunwayAPI
@testable import RunwayCapabilities
import RunwayHTTP
import RunwayJSON
@testable import RunwayKit
@testable import RunwayServer
import RunwayTestKit
import Testing

/// Every number a request body takes has a documented range, and the decoder holds each field to it before any code
/// computes with it.
@Suite("Number bounds")
struct NumberBoundsTests {
    /// Every number of every request body in the OpenAPI document, by route and field path, with its schema.
    static func requestNumbers(_ document: JSONValue) -> [(route: String, field: String, schema: JSONValue)] {
        let components = document["components"]?["schemas"]
        var found: [(String, String, JSONValue)] = []
        func walk(_ schema: JSONValue, route: String, path: String, seen: Set<String>) {
            if let ref = schema["$ref"]?.stringValue, let name = ref.split(separator: "/").last.map(String.init) {
                guard !seen.contains(name), let target = components?[name] else { return }
                walk(target, route: route, path: path, seen: seen.union([name]))
                return
            }
            for alternative in (schema["anyOf"]?.arrayValue ?? []) + (schema["oneOf"]?.arrayValue ?? []) {
                walk(alternative, route: route, path: path, seen: seen)
            }
            let types = schema["type"]?.arrayValue?.compactMap(\.stringValue) ?? [schema["type"]?.stringValue].compactMap { $0 }
            if types.contains("integer") || types.contains("number") { found.append((route, path, schema)) }
            for (key, property) in schema["properties"]?.objectValue ?? [] {
                walk(property, route: route, path: path.isEmpty ? key : path + "." + key, seen: seen)
            }
            if let items = schema["items"] { walk(items, route: route, path: path + "[]", seen: seen) }
            if case .object = schema["additionalProperties"] ?? .null, let values = schema["additionalProperties"] {
                walk(values, route: route, path: path + "{}", seen: seen)
            }
        }
        for (path, item) in document["paths"]?.objectValue ?? [] {
            for (method, operation) in item.objectValue ?? [] {
                guard let schema = operation["requestBody"]?["content"]?["application/json"]?["schema"] else { continue }
                walk(schema, route: "\(method.uppercased()) \(path)", path: "", seen: [])
            }
        }
        return found
    }

    @Test("every number of every request body has a documented minimum and maximum")
    func documented() async throws {
        let server = try await TestServer.start()
        let document = try #require(await server.client().get("/openapi.json").json)
        let numbers = Self.requestNumbers(document)
        #expect(numbers.count > 20)
        for (route, field, schema) in numbers {
            #expect(schema["minimum"] != nil && schema["maximum"] != nil, "\(route): \(field) has no documented range")
        }
        await server.stop()
    }

    /// A type with bounds of its own, to hold the decoder to them.
    struct Bounded: Decodable, BoundedNumbers {
        let window: Int
        let amount: Int64?
        let share: Double?
        static func bounds(ofNumberAt key: String) -> (minimum: Int64?, maximum: Int64?)? {
            switch key {
            case "window": (0, 2)
            case "amount": (0, 1_000_000_000_000)
            case "share": (0, 1)
            default: nil
            }
        }
    }

    @Test("the decoder refuses a number outside its field's bounds, naming the field",
          arguments: [#"{"window":3}"#, #"{"window":-1}"#, #"{"window":9223372036854775807}"#, #"{"window":1e308}"#,
                      #"{"window":-1e400}"#, #"{"window":1,"amount":1000000000001}"#, #"{"window":1,"share":1.5}"#])
    func refused(_ body: String) {
        #expect(throws: JSONDecodeFailure.self) { try StrictJSONDecoder().decode(Bounded.self, from: Array(body.utf8)) }
        do {
            _ = try StrictJSONDecoder().decode(Bounded.self, from: Array(body.utf8))
        } catch {
            guard case .invalidField(let field, let reason) = error else {
                Issue.record("\(body): \(error)")
                return
            }
            #expect(["window", "amount", "share"].contains(field), "\(body): \(field)")
            #expect(reason.hasPrefix("must be ") && reason.contains(" to "), "\(body): \(reason)")
        }
    }

    @Test("numbers within their bounds decode")
    func accepted() throws {
        let value = try StrictJSONDecoder().decode(Bounded.self, from: Array(#"{"window":2,"amount":1000000000000,"share":0.5}"#.utf8))
        #expect(value.window == 2 && value.amount == 1_000_000_000_000 && value.share == 0.5)
    }
}
