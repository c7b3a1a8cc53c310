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
}
