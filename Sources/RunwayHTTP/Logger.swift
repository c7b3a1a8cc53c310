import Foundation
import RunwayJSON
import Synchronization

/// How much to log; each level includes the ones above it.
public enum LogLevel: String, Sendable, Comparable, CaseIterable {
    case debug, info, warn, error

    var rank: Int { Self.allCases.firstIndex(of: self)! }
    public static func < (a: LogLevel, b: LogLevel) -> Bool { a.rank < b.rank }
}

/// Writes JSON lines (`{"ts","level","msg",…}`) to standard error. Never give it keys, tokens or addresses.
public struct Logger: Sendable {
    public let level: LogLevel
    private let sink: LogSink

    /// A logger writing to standard error, or to `sink` (for tests).
    public init(level: LogLevel, sink: LogSink = .standardError) {
        self.level = level
        self.sink = sink
    }

    public func enabled(_ level: LogLevel) -> Bool { level >= self.level }

    public func log(_ level: LogLevel, _ message: String, _ fields: KeyValuePairs<String, JSONValue> = [:]) {
        guard enabled(level) else { return }
        var members: [(String, JSONValue)] = [("ts", .string(Self.timestamp())), ("level", .string(level.rawValue)), ("msg", .string(message))]
        for (k, v) in fields { members.append((k, v)) }
        sink.write(JSONValue.object(members).serialized() + "\n")
    }

    public func debug(_ message: String, _ fields: KeyValuePairs<String, JSONValue> = [:]) { log(.debug, message, fields) }
    public func info(_ message: String, _ fields: KeyValuePairs<String, JSONValue> = [:]) { log(.info, message, fields) }
    public func warn(_ message: String, _ fields: KeyValuePairs<String, JSONValue> = [:]) { log(.warn, message, fields) }
    public func error(_ message: String, _ fields: KeyValuePairs<String, JSONValue> = [:]) { log(.error, message, fields) }

    /// UTC time with milliseconds, `2026-11-30T05:19:19.123Z`.
    static func timestamp() -> String {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        var seconds = spec.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ v: Int32, _ width: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(Int32(spec.tv_nsec / 1_000_000), 3))Z"
    }
}

/// Where log lines go; whole lines are written atomically with respect to each other.
public final class LogSink: Sendable {
    private let target: Mutex<Target>
    enum Target {
        case fileDescriptor(Int32)
        case memory([String])
    }

    private init(_ target: Target) { self.target = Mutex(target) }

    public static let standardError = LogSink(.fileDescriptor(2))

    /// Keeps lines in memory, for tests.
    public static func memory() -> LogSink { LogSink(.memory([])) }

    func write(_ line: String) {
        target.withLock { target in
            switch target {
            case .fileDescriptor(let fd):
                var bytes = Array(line.utf8)[...]
                while !bytes.isEmpty {
                    let n = bytes.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
                    if n <= 0 { return }
                    bytes = bytes.dropFirst(n)
                }
            case .memory(var lines):
                lines.append(line)
                target = .memory(lines)
            }
        }
    }

    /// The lines kept by a memory sink.
    public var lines: [String] {
        target.withLock { target in
            if case .memory(let lines) = target { return lines }
            return []
        }
    }
}

/// Logs one JSON line per request: id, method, route pattern, status and duration. Never the path (it carries install
/// ids and referral codes, which deleting an install could not reach in a log), the query, headers or body.
public struct AccessLogMiddleware: Middleware {
    let logger: Logger

    public init(logger: Logger) { self.logger = logger }

    public func handle(_ request: HTTPRequest, context: RequestContext, next: Responder) async throws -> HTTPResponse {
        let response = try await next(request, context)
        if logger.enabled(.info) {
            let elapsed = context.startedAt.duration(to: .now)
            let ms = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
            logger.info("request", [
                "requestId": .string(context.requestId),
                "method": .string(request.method),
                "route": .string(context.route?.pattern ?? "unmatched"),
                "status": .number(String(response.status)),
                "durationMs": .number(String(format: "%.3f", ms)),
                "bytes": .number(String(response.body.count)),
            ])
        }
        return response
    }
}
