import RunwayHTTP
import RunwayHTTPServer

/// The weak link from a stand-in's HTTP server to the stand-in it answers for: the server's handler holds this box,
/// not the stand-in, which owns the server and would otherwise never be freed. Once the stand-in is gone, 503.
final class StandInBox<StandIn: AnyObject & Sendable>: @unchecked Sendable {
    weak var standIn: StandIn?

    /// A server on 127.0.0.1 (`port` 0: any free one) that asks the boxed stand-in for each answer; not started.
    func server(port: UInt16, logger: Logger, answer: @escaping @Sendable (StandIn, HTTPRequest) async -> HTTPResponse) -> HTTPServer {
        HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: port, threads: 1, maxConnectionsPerAddress: 0),
                   logger: logger) { [self] request in
            guard let standIn else { return HTTPResponse(status: 503) }
            return await answer(standIn, request)
        }
    }
}
