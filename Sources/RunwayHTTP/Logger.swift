import Foundation
import RunwayJSON
import Synchronization

/// How much to log; each level includes the ones above it.
public enum LogLevel: String, Sendable, Comparable, CaseIterable {
    case debug, info, warn, error

    var rank: Int {
        switch self {
        case .debug: 0
        case .info: 1
        case .warn: 2
        case .error: 3
        }
    }
    public static func < (a: LogLevel, b: LogLevel) -> Bool { a.rank < b.rank }
}

/// Writes JSON lines (`{"ts","level","msg",…}`) to standard error. Never give it keys, tokens or addresses.
public struct Logger: Sendable {
    public let level: LogLevel
    let sink: LogSink

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
        sink.write(JSONValue.object(members).serialized() + "\n", urgent: level >= .warn)
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

/// Where log lines go; whole lines are written atomically with respect to each other. On a file descriptor, lines
/// below `warn` are handed to one writer thread (`LineWriter`), so no request waits for the log; a `warn` or `error`
/// line is written, after every line before it, before `log` returns.
public final class LogSink: Sendable {
    private let target: Target
    enum Target {
        case fileDescriptor(LineWriter)
        case memory(MemoryLines)
    }

    private init(_ target: Target) { self.target = target }

    public static let standardError = LogSink(.fileDescriptor(LineWriter(fileDescriptor: 2)))

    /// Keeps lines in memory, for tests.
    public static func memory() -> LogSink { LogSink(.memory(MemoryLines())) }

    final class MemoryLines: Sendable {
        let lines = Mutex<[String]>([])
    }

    func write(_ line: String, urgent: Bool = true) {
        switch target {
        case .fileDescriptor(let writer):
            var line = line
            line.withUTF8 { urgent ? writer.appendNow($0) : writer.append($0) }
        case .memory(let memory):
            memory.lines.withLock { $0.append(line) }
        }
    }

    /// A line (ending in a newline) that `format` appends to the bytes it is given, queued without waiting: on a file
    /// descriptor it is formatted straight into the calling thread's buffer.
    func write(formatted format: (inout [UInt8]) -> Void) {
        switch target {
        case .fileDescriptor(let writer):
            writer.append(format)
        case .memory(let memory):
            var bytes: [UInt8] = []
            format(&bytes)
            memory.lines.withLock { $0.append(String(decoding: bytes, as: UTF8.self)) }
        }
    }

    /// Waits until every line written so far has reached the file descriptor.
    public func flush() {
        if case .fileDescriptor(let writer) = target { writer.flush() }
    }

    /// The lines kept by a memory sink.
    public var lines: [String] {
        if case .memory(let memory) = target { return memory.lines.withLock { $0 } }
        return []
    }
}

