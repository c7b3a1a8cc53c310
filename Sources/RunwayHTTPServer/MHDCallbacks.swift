import CMicroHTTPD
import Foundation
import LinkRunwayAPI
import RunwayHTTP

/// libmicrohttpd calls this several times per request: once when the headers are in, once per chunk of body, once
/// when the body is complete, and once more after a suspended connection is resumed. What the request is at each call
/// is its `RequestSlot` and, once tracked, its `RequestLife`.
let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, _, uploadData, uploadDataSize, requestClosure in
    guard let cls, let connection, let uploadDataSize, let requestClosure else { return .NO }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()

    let state: RequestState
    switch RequestSlot.read(requestClosure) {
    case .empty:
        // First call: the request line and headers are in. A GET may be for a hot route: nothing is read yet, and the
        // request is marked for the hot path.
        lr_guard_phase(server.guardian, connection, Int32(LR_BODY.rawValue))
        if server.immediate != nil, let method, isGetOrHead(method) {
            RequestSlot.store(.hotCandidate, in: requestClosure)
            return .YES
        }
        return begin(server, connection, url, method, requestClosure).result
    case .hotCandidate:
        if uploadDataSize.pointee == 0, let immediate = server.immediate {
            lr_guard_phase(server.guardian, connection, Int32(LR_HANDLED.rawValue))
            let request = HotPath.request(method: method.map { String(cString: $0) } ?? "GET", path: url.map { String(cString: $0) } ?? "/",
                                          query: values(connection, kind: .GET_ARGUMENT_KIND),
                                          headers: values(connection, kind: .HEADER_KIND, named: hotHeaderNames, expecting: 8),
                                          remoteAddress: clientAddress(connection))
            if let response = immediate(request) {
                guard let release = response.release else {
                    return queue(response, on: connection, closing: server.shuttingDown.load(ordering: .relaxed))
                }
                // One that must wait for work it started (a redirect's durable click) holds the connection until then.
                let held = RequestState(connection: connection, method: request.method, path: request.path, life: .held())
                RequestSlot.store(.tracked(held), in: requestClosure)
                server.hold(held, response, release: release)
                return .YES
            }
        }
        // Not for the hot path after all (or a GET with a body): the whole request is read the ordinary way, and this
        // call goes on as the body's first chunk or its end.
        let (result, begun) = begin(server, connection, url, method, requestClosure)
        guard case .reading = begun.life.phase else { return result }
        state = begun
    case .tracked(let tracked):
        state = tracked
    }

    let size = uploadDataSize.pointee
    if size > 0 {
        lr_guard_body(server.guardian, connection, size)
        switch state.life.chunk(size, reserve: { server.reserveBody($0) }) {
        case .keep:
            state.budgeted += size
            if let uploadData {
                uploadData.withMemoryRebound(to: UInt8.self, capacity: size) { state.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: size)) }
            }
        case .dropAll:
            state.release(from: server)
        case .drop:
            break
        }
        uploadDataSize.pointee = 0
        return .YES
    }
    lr_guard_phase(server.guardian, connection, Int32(LR_HANDLED.rawValue))

    let answer = state.takeResponse()
    switch state.life.next(answerReady: answer != nil) {
    case .send:
        guard let answer else { return .YES }  // `.send` comes only with an answer
        return queue(answer, on: connection, closing: server.shuttingDown.load(ordering: .relaxed))
    case .refuseTooLarge:
        return queue(HTTPError.payloadTooLarge(limit: state.life.limit).response, on: connection, closing: true)
    case .refuseBusy:
        return queue(HTTPError.unavailable(.serverBusy, "the server is reading too many request bodies at once; retry shortly").response,
                     on: connection, closing: true)
    case .dispatch:
        server.dispatch(state, state.request)
        return .YES
    case .wait:
        return .YES
    }
}

private func isGetOrHead(_ method: UnsafePointer<CChar>) -> Bool {
    strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0
}

/// Records the whole request in a `RequestState` (every header, the query, the peer) and refuses a body over the
/// route's limit before a byte of it is read.
private func begin(_ server: HTTPServer, _ connection: OpaquePointer, _ url: UnsafePointer<CChar>?, _ method: UnsafePointer<CChar>?,
                   _ requestClosure: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> (result: MHD_Result, state: RequestState) {
    let method = method.map { String(cString: $0) } ?? "GET", path = url.map { String(cString: $0) } ?? "/"
    // The route's limit, known before a byte of the body is read.
    var matched: (route: Route, parameters: [String: String])?
    if method != "GET", method != "HEAD", case .found(let route, let parameters)? = server.router?.match(method: method, path: path) {
        matched = (route, parameters)
    }
    let limit = min(server.configuration.maxBodyBytes, matched?.route.operation.maxBodyBytes ?? .max)
    let contentLength = MHD_lookup_connection_value(connection, .HEADER_KIND, "Content-Length").flatMap { Int(String(cString: $0)) }
    let state = RequestState(connection: connection, method: method, path: path, life: RequestLife(limit: limit, contentLength: contentLength))
    state.headers = values(connection, kind: .HEADER_KIND)
    state.query = values(connection, kind: .GET_ARGUMENT_KIND)
    state.remoteAddress = clientAddress(connection)
    state.matchedRoute = matched
    RequestSlot.store(.tracked(state), in: requestClosure)
    guard case .reading = state.life.phase else {
        // Refused before reading a byte of the body; libmicrohttpd closes the connection afterwards.
        return (queue(HTTPError.payloadTooLarge(limit: limit).response, on: connection, closing: true), state)
    }
    return (.YES, state)
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
    guard let cls, let requestClosure else { return }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    let slot = RequestSlot.take(requestClosure)
    if case .empty = slot { return }
    if case .tracked(let state) = slot { state.release(from: server) }
    if let connection { lr_guard_phase(server.guardian, connection, Int32(LR_HEADERS.rawValue)) }
    if case .tracked(let state) = slot, state.life.inFlight { server.inFlight.subtract(1, ordering: .releasing) }
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

/// Every key and value of one kind (headers, query arguments), or only those whose key is one of `names` (compared
/// without case, before any String is made).
private func values(_ connection: OpaquePointer, kind: MHD_ValueKind, named names: [UnsafeMutablePointer<CChar>]? = nil,
                    expecting count: Int = 0) -> [(String, String)] {
    var sink = ValueSink(names: names)
    sink.values.reserveCapacity(count)
    withUnsafeMutablePointer(to: &sink) { pointer in
        _ = MHD_get_connection_values(connection, kind, { cls, _, key, value in
            guard let cls, let key else { return .YES }
            let sink = cls.assumingMemoryBound(to: ValueSink.self)
            if let names = sink.pointee.names, !names.contains(where: { strcasecmp($0, key) == 0 }) { return .YES }
            sink.pointee.values.append((String(cString: key), value.map { String(cString: $0) } ?? ""))
            return .YES
        }, pointer)
    }
    return sink.values
}

private struct ValueSink {
    let names: [UnsafeMutablePointer<CChar>]?
    var values: [(String, String)] = []
}
