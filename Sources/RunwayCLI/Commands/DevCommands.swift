import Foundation
import RunwayCrypto
import RunwayDevTools
import RunwayHTTP
import RunwayServer

/// Tools for development and demos.
enum DevCommands {
    static let fakeAdServices: Command = Command(["dev", "fake-adservices"], summary: "Run a stand-in for Apple's AdServices API until SIGTERM or SIGINT.",
                                        options: [.value("--port", "port", "TCP port on 127.0.0.1 (default 8090).")],
                                        details: """
        Point the server at it with LINKRUNWAY_APPLE_ADS_URL=http://127.0.0.1:<port>. The token decides the answer:
        tap, view, tap-standard, view-standard, search-match, strings, preorder, test (Apple's developer-mode sample), no
        (attribution false), invalid (400), error (500), missing (always 404), late-N (404 N times, then tap), garbage, slow (tap after 5 s).
        """) { arguments, context in
        guard let port = UInt16(arguments.value("--port") ?? "8090") else { throw UsageError("--port must be a port number") }
        let termination = ServerRuntime.terminationSignal()
        let fake: FakeAdServices
        do {
            fake = try FakeAdServices(port: port, logger: Logger(level: .warn))
        } catch {
            throw CommandFailure("cannot listen on 127.0.0.1:\(port): \(error)")
        }
        context.output("Fake AdServices listening on \(fake.baseURL)")
        await termination.wait()
        await fake.server.shutdown(grace: .seconds(1))
    }

    static let fakeAppStoreAPI: Command = Command(["dev", "fake-app-store-api"],
                                         summary: "Run a stand-in for the App Store Server API's notification history until SIGTERM or SIGINT.",
                                         options: [
        .value("--port", "port", "TCP port on 127.0.0.1 (default 8091)."),
        .required("--issuer-id", "uuid", "The issuer id tokens must carry (iss)."),
        .required("--key-id", "id", "The key id tokens must carry (kid)."),
        .required("--bundle-id", "id", "The bundle id tokens must carry (bid)."),
        .required("--public-key", "pem", "PEM file of the public key tokens must be signed with (or the .p8 private key itself)."),
        .value("--history", "file", "A JSON array of signed notifications (signedPayload strings) to serve, each sent at its signedDate."),
    ], details: """
        Point the server at it with LINKRUNWAY_APP_STORE_API_URL=http://127.0.0.1:<port>. It answers
        POST /inApps/v1/notifications/history 20 at a time with a paginationToken, and 401 to a token that is not an
        ES256 JWT of that key with that kid, iss, bid, aud appstoreconnect-v1 and a live exp at most an hour after iat.
        """) { arguments, context in
        guard let port = UInt16(arguments.value("--port") ?? "8091") else { throw UsageError("--port must be a port number") }
        let keyFile = try arguments.required("--public-key")
        guard let pem = try? String(contentsOfFile: keyFile, encoding: .utf8),
              let publicKey = PublicKey(pem: pem) ?? PrivateKey.pem(pem)?.publicKey else {
            throw CommandFailure("\(keyFile) is not a PEM public or private key")
        }
        var payloads: [String] = []
        if let file = arguments.value("--history") {
            guard let data = FileManager.default.contents(atPath: file), let list = try? JSONDecoder().decode([String].self, from: data) else {
                throw CommandFailure("\(file) is not a JSON array of signed notifications")
            }
            payloads = list
        }
        let credentials = FakeAppStoreServerAPI.Credentials(issuerId: try arguments.required("--issuer-id"), keyId: try arguments.required("--key-id"),
                                                            bundleId: try arguments.required("--bundle-id"), publicKey: publicKey)
        let termination = ServerRuntime.terminationSignal()
        let fake: FakeAppStoreServerAPI
        do {
            fake = try FakeAppStoreServerAPI(port: port, credentials: credentials, logger: Logger(level: .warn))
        } catch {
            throw CommandFailure("cannot listen on 127.0.0.1:\(port): \(error)")
        }
        guard fake.add(payloads) else {
            await fake.server.shutdown(grace: .seconds(1))
            throw CommandFailure("a history entry is not a signed notification with a signedDate")
        }
        context.output("Fake App Store Server API listening on \(fake.baseURL)")
        await termination.wait()
        await fake.server.shutdown(grace: .seconds(1))
    }

    static let fakeRetentionAPI: Command = Command(["dev", "fake-retention-api"],
                                          summary: "Run a stand-in for Apple's Retention Messaging API, and for Apple's realtime calls, until SIGTERM or SIGINT.",
                                          options: [
        .value("--port", "port", "TCP port on 127.0.0.1 (default 8092)."),
        .required("--issuer-id", "uuid", "The issuer id tokens must carry (iss)."),
        .required("--key-id", "id", "The key id tokens must carry (kid)."),
        .required("--bundle-id", "id", "The bundle id tokens must carry (bid)."),
        .required("--public-key", "pem", "PEM file of the public key tokens must be signed with (or the .p8 private key itself)."),
        .required("--app-apple-id", "id", "The App Store id its realtime requests name."),
        .required("--root-out", "file", "Where to write the root certificate its realtime requests chain to (for LINKRUNWAY_APP_STORE_ROOT)."),
        .value("--test-requests", "n", "Requests a performance test sends (default 50)."),
    ], details: """
        Point the server at it with LINKRUNWAY_APP_STORE_API_URL=http://127.0.0.1:<port> and LINKRUNWAY_APP_STORE_ROOT=<root-out>.
        It keeps messages, defaults, realtime URLs and performance tests as Apple documents them (docs/retention.md), and
        POST /stand-in/realtime {"environment","originalTransactionId","productId","locale"} makes the realtime call Apple
        makes when a subscriber views a subscription, answering what came back and how long it took.
        """) { arguments, context in
        guard let port = UInt16(arguments.value("--port") ?? "8092") else { throw UsageError("--port must be a port number") }
        guard let appAppleId = Int64(try arguments.required("--app-apple-id")), appAppleId > 0 else { throw UsageError("--app-apple-id must be a number") }
        let requests = Int(arguments.value("--test-requests") ?? "50") ?? 0
        guard (1...10_000).contains(requests) else { throw UsageError("--test-requests must be 1 to 10000") }
        let keyFile = try arguments.required("--public-key")
        guard let pem = try? String(contentsOfFile: keyFile, encoding: .utf8),
              let publicKey = PublicKey(pem: pem) ?? PrivateKey.pem(pem)?.publicKey else {
            throw CommandFailure("\(keyFile) is not a PEM public or private key")
        }
        guard let signer = AppStoreStandInSigner() else { throw CommandFailure("cannot make the stand-in's certificates") }
        let rootFile = try arguments.required("--root-out")
        do { try signer.rootPEM.write(toFile: rootFile, atomically: true, encoding: .utf8) } catch { throw CommandFailure("cannot write \(rootFile): \(error)") }
        let credentials = FakeAppStoreServerAPI.Credentials(issuerId: try arguments.required("--issuer-id"), keyId: try arguments.required("--key-id"),
                                                            bundleId: try arguments.required("--bundle-id"), publicKey: publicKey)
        let termination = ServerRuntime.terminationSignal()
        let fake: FakeRetentionMessagingAPI
        do {
            fake = try FakeRetentionMessagingAPI(port: port, credentials: credentials, sign: signer.sign, appAppleId: appAppleId, testRequests: requests,
                                                 logger: Logger(level: .warn))
        } catch {
            throw CommandFailure("cannot listen on 127.0.0.1:\(port): \(error)")
        }
        context.output("Fake Retention Messaging API listening on \(fake.baseURL); its root is in \(rootFile)")
        await termination.wait()
        await fake.server.shutdown(grace: .seconds(1))
    }

    static let retentionRequests: Command = Command(["dev", "retention-requests"],
                                           summary: "Write realtime retention requests signed as Apple signs them, and the root they chain to (for load tests).",
                                           options: [
        .required("--app-apple-id", "id", "The App Store id they name."),
        .required("--count", "n", "How many requests (each its own request identifier)."),
        .value("--subscriptions", "n", "How many original transactions they are spread over (default --count), numbered from --first."),
        .value("--first", "n", "The first original transaction id (default 1000000000)."),
        .value("--environment", "env", "Production (default) or Sandbox."),
        .required("--root-out", "file", "Where to write the root certificate (for LINKRUNWAY_APP_STORE_ROOT)."),
        .required("--out", "file", "Where to write the request bodies, a JSON array of strings."),
    ]) { arguments, context in
        guard let appAppleId = Int64(try arguments.required("--app-apple-id")), appAppleId > 0 else { throw UsageError("--app-apple-id must be a number") }
        guard let count = Int(try arguments.required("--count")), (1...1_000_000).contains(count) else { throw UsageError("--count must be 1 to 1000000") }
        guard let subscriptions = Int(arguments.value("--subscriptions") ?? String(count)), subscriptions >= 1,
              let first = Int64(arguments.value("--first") ?? "1000000000"), first >= 0, first <= Int64.max - Int64(subscriptions) else {
            throw UsageError("--subscriptions and --first must be positive numbers")
        }
        let environment = arguments.value("--environment") ?? "Production"
        guard ["Production", "Sandbox"].contains(environment) else { throw UsageError("--environment must be Production or Sandbox") }
        guard let signer = AppStoreStandInSigner() else { throw CommandFailure("cannot make the stand-in's certificates") }
        let bodies = (0..<count).map { index in
            // Spread over the subscriptions (7,919 is prime: every one is named before any is named twice, when they are fewer).
            String(decoding: FakeRetentionMessagingAPI.realtimeBody(sign: signer.sign, originalTransactionId: String(first + Int64((index * 7_919) % subscriptions)),
                                                                    appAppleId: appAppleId, productId: "premium.monthly", locale: "en-US",
                                                                    environment: environment), as: UTF8.self)
        }
        do {
            try signer.rootPEM.write(toFile: try arguments.required("--root-out"), atomically: true, encoding: .utf8)
            try JSONEncoder().encode(bodies).write(to: URL(fileURLWithPath: try arguments.required("--out")))
        } catch {
            throw CommandFailure("cannot write the files: \(error)")
        }
        context.output("Wrote \(count) signed requests")
    }
}
