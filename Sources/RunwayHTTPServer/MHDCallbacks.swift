import CMicroHTTPD
import Foundation
import LinkRunwayAPI
import RunwayHTTP

/// libmicrohttpd calls this several times per request: once when the headers are in, once per chunk of body, once
/// when the body is complete, and once more after a suspended connection is resumed.
let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, _, uploadData, uploadDataSize, requestClosure in
    guard let cls, let connection, let uploadDataSize, let requestClosure else { return .NO }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()

    guard var existing = requestClosure.pointee else {
        // First call: the request line and headers are in. A GET may be for a hot route: nothing is read yet, and the
        // request is marked for the hot path.
        lr_guard_phase(server.guardian, connection, Int32(LR_BODY.rawValue))
        if server.immediate != nil, let method, isGetOrHead(method) {
            requestClosure.pointee = hotRequestMarker
            return .YES
        }
        return begin(server, connection, url, method, requestClosure)
    }

    if existing == hotRequestMarker {
        if uploadDataSize.pointee == 0, let immediate = server.immediate {
            lr_guard_phase(server.guardian, connection, Int32(LR_HANDLED.rawValue))
            let request = hotRequest(connection, url, method)
            if let response = immediate(request) {
                guard let release = response.release else {
                    return queue(response, on: connection, closing: server.shuttingDown.load(ordering: .relaxed))
                }
                // One that must wait for work it started (a redirect's durable click) holds the connection until then.
                let state = RequestState(connection: connection, method: request.method, path: request.path)
                requestClosure.pointee = Unmanaged.passRetained(state).toOpaque()
                server.hold(state, response, release: release)
                return .YES
            }
        }
        // Not for the hot path after all (or a GET with a body): the whole request is read the ordinary way.
        requestClosure.pointee = nil
        let result = begin(server, connection, url, method, requestClosure)
        guard let state = requestClosure.pointee, !Unmanaged<RequestState>.fromOpaque(state).takeUnretainedValue().bodyTooLarge else {
            return result
        }
        existing = state
    }

    let state = Unmanaged<RequestState>.fromOpaque(existing).takeUnretainedValue()
    let size = uploadDataSize.pointee
    if size > 0 {
        lr_guard_body(server.guardian, connection, size)
        if !state.bodyTooLarge, !state.overBudget, let uploadData {
            if state.body.count + size > state.bodyLimit {
                state.bodyTooLarge = true
                state.release(from: server)
            } else if server.bufferedBodyBytes.add(size, ordering: .relaxed).newValue > server.configuration.maxBufferedBodyBytes {
                // Every connection's buffered body together is bounded: past it, this request is turned away.
                server.bufferedBodyBytes.subtract(size, ordering: .relaxed)
                state.overBudget = true
                state.release(from: server)
            } else {
                state.budgeted += size
                uploadData.withMemoryRebound(to: UInt8.self, capacity: size) { state.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: size)) }
            }
        }
        uploadDataSize.pointee = 0
        return .YES
    }
    lr_guard_phase(server.guardian, connection, Int32(LR_HANDLED.rawValue))

    if let response = state.takeResponse() {
        return queue(response, on: connection, closing: server.shuttingDown.load(ordering: .relaxed))
    }
    if state.bodyTooLarge {
        return queue(HTTPError.payloadTooLarge(limit: state.bodyLimit).response, on: connection, closing: true)
    }
    if state.overBudget {
        return queue(HTTPError.unavailable(.serverBusy, "the server is reading too many request bodies at once; retry shortly").response,
                     on: connection, closing: true)
    }
    if state.dispatched { return .YES }
    server.dispatch(state, state.request)
    return .YES
}

/// Marks a GET whose first call read nothing yet, to be tried on the hot path once the request is complete; it owns
/// nothing, so the completion callback has nothing to release. (Never written through, so shared safely.)
nonisolated(unsafe) private let hotRequestMarker = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)

private func isGetOrHead(_ method: UnsafePointer<CChar>) -> Bool {
    strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0
}

/// Records the whole request in a `RequestState` (every header, the query, the peer) and refuses a body over the
/// route's limit before a byte of it is read.
private func begin(_ server: HTTPServer, _ connection: OpaquePointer, _ url: UnsafePointer<CChar>?, _ method: UnsafePointer<CChar>?,
                   _ requestClosure: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> MHD_Result {
    let state = RequestState(connection: connection,
                             method: method.map { String(cString: $0) } ?? "GET",
                             path: url.map { String(cString: $0) } ?? "/")
    collectValues(connection, kind: .HEADER_KIND) { state.headers.append(($0, $1)) }
    collectValues(connection, kind: .GET_ARGUMENT_KIND) { state.query.append(($0, $1)) }
    state.remoteAddress = clientAddress(connection)
    requestClosure.pointee = Unmanaged.passRetained(state).toOpaque()
    // The route's limit, known before a byte of the body is read.
    let routeLimit = state.method == "GET" || state.method == "HEAD" ? nil : server.bodyLimit(state.method, state.path)
    let limit = min(server.configuration.maxBodyBytes, routeLimit ?? .max)
    state.bodyLimit = limit
    if let length = MHD_lookup_connection_value(connection, .HEADER_KIND, "Content-Length").flatMap({ Int(String(cString: $0)) }),
       length > limit {
        // Refuse before reading a byte of the body; libmicrohttpd closes the connection afterwards.
        state.bodyTooLarge = true
        return queue(HTTPError.payloadTooLarge(limit: limit).response, on: connection, closing: true)
    }
    return .YES
}

/// A complete GET as the hot path sees it: the headers it may read (`HotPath.headerNames`), the query and the peer.
private func hotRequest(_ connection: OpaquePointer, _ url: UnsafePointer<CChar>?, _ method: UnsafePointer<CChar>?) -> HTTPRequest {
    var headers: [(String, String)] = []
    headers.reserveCapacity(8)
    collectValues(connection, kind: .HEADER_KIND, named: hotHeaderNames) { headers.append(($0, $1)) }
    var query: [(String, String)] = []
    collectValues(connection, kind: .GET_ARGUMENT_KIND) { query.append(($0, $1)) }
    return HTTPRequest(method: method.map { String(cString: $0) } ?? "GET", path: url.map { String(cString: $0) } ?? "/", query: query,
                       headers: HTTPHeaders(headers), remoteAddress: clientAddress(connection))
}

/// `HotPath.headerNames` as C strings, for comparing without making Strings of the others.
// trap-safe: strdup fails only when memory is exhausted, at start
nonisolated(unsafe) private let hotHeaderNames: [UnsafeMutablePointer<CChar>] = HotPath.headerNames.map { strdup($0)! }

/// The peer's numeric address.
private func clientAddress(_ connection: OpaquePointer) -> String? {
    withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
        // trap-safe: a temporary allocation of 64 has a base address
        lr_mhd_client_address(connection, buffer.baseAddress, 64) == 0 ? String(cString: buffer.baseAddress!) : nil
    }
}

/// The single release point of a request's state, whether it completed or the client went away.
let completedHandler: MHD_RequestCompletedCallback = { cls, connection, requestClosure, _ in
    guard let cls, let requestClosure, let pointer = requestClosure.pointee else { return }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    if pointer == hotRequestMarker {
        requestClosure.pointee = nil
        if let connection { lr_guard_phase(server.guardian, connection, Int32(LR_HEADERS.rawValue)) }
        return
    }
    let state = Unmanaged<RequestState>.fromOpaque(pointer).takeRetainedValue()
    requestClosure.pointee = nil
    state.release(from: server)
    if let connection { lr_guard_phase(server.guardian, connection, Int32(LR_HEADERS.rawValue)) }
    if state.dispatched { server.inFlight.subtract(1, ordering: .releasing) }
}

/// Queues a response; only ever called from inside the access handler. A prepared response sent unchanged goes as the
/// libmicrohttpd response kept with it (made the first time, shared by every connection); any other is copied in.
private func queue(_ response: HTTPResponse, on connection: OpaquePointer, closing: Bool) -> MHD_Result {
    if !closing, let prepared = response.prepared,
       let kept = prepared.transportForm.get(orMake: {
           guard let made = makeResponse(response, closing: false) else { return nil }
           return (UnsafeMutableRawPointer(made), { MHD_destroy_response(OpaquePointer($0)) })
       }) {
        return MHD_queue_response(connection, UInt32(response.status), OpaquePointer(kept))
    }
    guard let created = makeResponse(response, closing: closing) else { return .NO }
    defer { MHD_destroy_response(created) }
    return MHD_queue_response(connection, UInt32(response.status), created)
}

/// libmicrohttpd's copy of a response: its body and headers (libmicrohttpd writes Content-Length itself).
private func makeResponse(_ response: HTTPResponse, closing: Bool) -> OpaquePointer? {
    let created: OpaquePointer? = response.body.withUnsafeBytes { bytes in
        MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
    }
    guard let created else { return nil }
    for (name, value) in response.headers where !name.caseInsensitiveEquals("Content-Length") {
        _ = name.withCString { name in value.withCString { value in MHD_add_response_header(created, name, value) } }
    }
    if closing { _ = MHD_add_response_header(created, "Connection", "close") }
    return created
}

/// Calls `body` with every key and value of one kind (headers, query arguments), or only those whose key is one of
/// `names` (compared without case, before any String is made).
private func collectValues(_ connection: OpaquePointer, kind: MHD_ValueKind, named names: [UnsafeMutablePointer<CChar>]? = nil,
                           _ body: (String, String) -> Void) {
    withoutActuallyEscaping(body) { body in
        var sink = ValueSink(body: body, names: names)
        withUnsafeMutablePointer(to: &sink) { pointer in
            _ = MHD_get_connection_values(connection, kind, { cls, _, key, value in
                guard let cls, let key else { return .YES }
                let sink = cls.assumingMemoryBound(to: ValueSink.self)
                if let names = sink.pointee.names, !names.contains(where: { strcasecmp($0, key) == 0 }) { return .YES }
                sink.pointee.body(String(cString: key), value.map { String(cString: $0) } ?? "")
                return .YES
            }, pointer)
        }
    }
}

private struct ValueSink {
    let body: (String, String) -> Void
    let names: [UnsafeMutablePointer<CChar>]?
}
