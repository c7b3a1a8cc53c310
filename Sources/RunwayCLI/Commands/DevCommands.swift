import RunwayDevTools
import RunwayHTTP
import RunwayServer

/// Tools for development and demos.
enum DevCommands {
    static let fakeAdServices = Command(["dev", "fake-adservices"], summary: "Run a stand-in for Apple's AdServices API until SIGTERM or SIGINT.",
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
}
