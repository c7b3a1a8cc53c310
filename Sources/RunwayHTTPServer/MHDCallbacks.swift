import CMicroHTTPD
import Foundation
import RunwayHTTP

/// libmicrohttpd calls this several times per request: once when the headers are in, once per chunk of body, once
/// when the body is complete, and once more after a suspended connection is resumed.
let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, _, uploadData, uploadDataSize, requestClosure in
    guard let cls, let connection, let uploadDataSize, let requestClosure else { return .NO }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()

    guard let existing = requestClosure.pointee else {
        // First call: the request line and headers are in.
        let state = RequestState(connection: connection,
                                 method: method.map { String(cString: $0) } ?? "GET",
                                 path: url.map { String(cString: $0) } ?? "/")
        collectValues(connection, kind: .HEADER_KIND) { state.headers.append(($0, $1)) }
        collectValues(connection, kind: .GET_ARGUMENT_KIND) { state.query.append(($0, $1)) }
        var address = [CChar](repeating: 0, count: 64)
        if lr_mhd_client_address(connection, &address, address.count) == 0 {
            state.remoteAddress = address.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        }
        requestClosure.pointee = Unmanaged.passRetained(state).toOpaque()
        lr_guard_phase(server.guardian, connection, Int32(LR_BODY.rawValue))
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
        return queue(HTTPError.unavailable("server_busy", "the server is reading too many request bodies at once; retry shortly").response,
                     on: connection, closing: true)
    }
    if state.dispatched { return .YES }
    let request = state.request
    // A route that can answer without waiting does so here: no task, no suspended connection.
    if let immediate = server.immediate, let response = immediate(request) {
        // One that must wait for work it started (a redirect's durable click) holds the connection until then.
        if let release = response.release {
            server.hold(state, response, release: release)
            return .YES
        }
        return queue(response, on: connection, closing: server.shuttingDown.load(ordering: .relaxed))
    }
    server.dispatch(state, request)
    return .YES
}

/// The single release point of a request's state, whether it completed or the client went away.
let completedHandler: MHD_RequestCompletedCallback = { cls, connection, requestClosure, _ in
    guard let cls, let requestClosure, let pointer = requestClosure.pointee else { return }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    let state = Unmanaged<RequestState>.fromOpaque(pointer).takeRetainedValue()
    requestClosure.pointee = nil
    state.release(from: server)
    if let connection { lr_guard_phase(server.guardian, connection, Int32(LR_HEADERS.rawValue)) }
    if state.dispatched { server.inFlight.subtract(1, ordering: .releasing) }
}

/// Copies a response into libmicrohttpd and queues it; only ever called from inside the access handler.
private func queue(_ response: HTTPResponse, on connection: OpaquePointer, closing: Bool) -> MHD_Result {
    let created: OpaquePointer? = response.body.withUnsafeBytes { bytes in
        MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
    }
    guard let created else { return .NO }
    defer { MHD_destroy_response(created) }
    for (name, value) in response.headers where !name.caseInsensitiveEquals("Content-Length") {
        _ = MHD_add_response_header(created, name, value)
    }
    if closing { _ = MHD_add_response_header(created, "Connection", "close") }
    return MHD_queue_response(connection, UInt32(response.status), created)
}

/// Calls `body` with every key and value of one kind (headers, query arguments).
private func collectValues(_ connection: OpaquePointer, kind: MHD_ValueKind, _ body: (String, String) -> Void) {
    withoutActuallyEscaping(body) { body in
        var sink = ValueSink(body: body)
        withUnsafeMutablePointer(to: &sink) { pointer in
            _ = MHD_get_connection_values(connection, kind, { cls, _, key, value in
                guard let cls, let key else { return .YES }
                let sink = cls.assumingMemoryBound(to: ValueSink.self)
                sink.pointee.body(String(cString: key), value.map { String(cString: $0) } ?? "")
                return .YES
            }, pointer)
        }
    }
}

private struct ValueSink {
    let body: (String, String) -> Void
}
