import Foundation
import LinkRunwayAPI
@testable import RunwayCapabilities
@testable import RunwayConsole
import RunwayHTTP
import RunwayJSON
@testable import RunwayKit
@testable import RunwayServer
import RunwayTestKit
import Testing

@Suite("OpenAPI document")
struct OpenAPITests {
    @Test("documents exactly the router's routes, each once, with unique operation ids and resolvable schemas")
    func matchesRouter() async throws {
        let server = try await TestServer.start()
        let document = try #require(await server.client().get("/openapi.json").json)
        #expect(document["openapi"] == "3.1.0")
        var documented = Set<String>()
        var operationIds = Set<String>()
        for (path, item) in document["paths"]?.objectValue ?? [] {
            for (method, operation) in item.objectValue ?? [] {
                documented.insert("\(method.uppercased()) \(path)")
                let id = try #require(operation["operationId"]?.stringValue)
                #expect(operationIds.insert(id).inserted, "duplicate operationId \(id)")
            }
        }
        let routed = Set(server.application.router.routes.map { "\($0.method.rawValue) \(OpenAPIBuilder.openAPIPath($0.pattern))" })
        #expect(documented == routed)

        let schemas = Set((document["components"]?["schemas"]?.objectValue ?? []).map(\.0))
        for ref in Self.references(in: document) {
            #expect(schemas.contains(String(ref.split(separator: "/").last!)), "unresolved \(ref)")
        }
        await server.stop()
    }

    @Test("key kinds in the document are the ones the router enforces")
    func keyKinds() async throws {
        let server = try await TestServer.start()
        let document = try #require(await server.client().get("/openapi.json").json)
        for route in server.application.router.routes {
            let operation = document["paths"]?[OpenAPIBuilder.openAPIPath(route.pattern)]?[route.method.rawValue.lowercased()]
            switch route.operation.access {
            case .open:
                #expect(operation?["security"] == .array([]))
            case .keys(let kinds):
                #expect(operation?["x-linkrunway-key-kinds"] == .array(kinds.sorted().map { .string($0) }))
                #expect(operation?["responses"]?["401"] != nil)
            }
        }
        await server.stop()
    }

    @Test("every response to the matrix's probes, successes and failures, is documented and matches its schema")
    func responsesMatchDocument() async throws {
        let world = try await AuthMatrixTests.makeWorld()
        let server = world.server
        let document = try #require(await server.client().get("/openapi.json").json)
        let validator = JSONSchemaValidator(document: document)
        let probes = AuthMatrixTests.probes(world)
        var checked = 0
        for route in server.application.router.routes {
            let probe = try #require(probes[route.label])
            let keys: [String?] = [nil, server.adminKey, world.serverKeyA.secret, world.keys[.server]!.secret, world.keys[.publishable]!.secret]
            let bodies = [probe.body, probe.body.isEmpty ? "" : "{", probe.body.isEmpty ? "" : #"{"unexpected":true}"#]
            for key in keys {
                for body in bodies {
                    let response = await server.client(key).send(probe.method, probe.path, body: Array(body.utf8))
                    let operation = document["paths"]?[OpenAPIBuilder.openAPIPath(route.pattern)]?[route.method.rawValue.lowercased()]
                    guard let documented = operation?["responses"]?[String(response.status)] else {
                        Issue.record("\(route.label) answered \(response.status), which the document does not list")
                        continue
                    }
                    // The answer's media type must be one the document gives for its status; JSON is checked against its schema.
                    let mediaType = response.headers["Content-Type"]?.split(separator: ";").first.map(String.init)
                    if let content = documented["content"]?.objectValue, let mediaType {
                        #expect(content.contains { $0.0 == mediaType }, "\(route.label) \(response.status) came as \(mediaType), not as documented")
                    }
                    if mediaType == "application/json", let schema = documented["content"]?["application/json"]?["schema"] {
                        let value = try #require(response.json, "\(route.label) \(response.status) is not JSON")
                        let problems = validator.validate(value, against: schema)
                        #expect(problems.isEmpty, "\(route.label) \(response.status): \(problems)")
                    }
                    checked += 1
                }
            }
        }
        #expect(checked > 100)
        await server.stop()
    }

    static func references(in value: JSONValue) -> [String] {
        switch value {
        case .object(let members):
            return members.flatMap { key, member in key == "$ref" ? [member.stringValue ?? ""] : references(in: member) }
        case .array(let items):
            return items.flatMap(references(in:))
        default:
            return []
        }
    }
}
