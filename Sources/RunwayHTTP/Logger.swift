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
            line.withUTF8 { writer.append($0, wait: urgent) }
        case .memory(let memory):
            memory.lines.withLock { $0.append(line) }
        }
    }

    /// A line already formatted as bytes (ending in a newline), queued without waiting.
    func write(bytes: [UInt8]) {
        switch target {
        case .fileDescriptor(let writer):
            bytes.withUnsafeBufferPointer { writer.append($0, wait: false) }
        case .memory(let memory):
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

/// One thread writes what every other thread appends: a request only copies its line into the buffer, under a lock
/// held for the copy. When the buffer holds `limit` bytes (the file descriptor is not keeping up), further lines are
/// dropped and counted, and a line saying how many is written once there is room again. Flushed at exit. (One
/// shared buffer rather than one per thread: the copy under the lock is short next to formatting the line, and with
/// libmicrohttpd's few threads the lock is rarely contended.)
final class LineWriter: @unchecked Sendable {
    let fileDescriptor: Int32
    /// The most bytes waiting for the writer; past it, lines are dropped.
    let limit: Int
    private var pending: [UInt8] = []
    private var dropped = 0
    /// Bytes handed to the writer (appended) and written so far; `flush` waits for them to meet.
    private var appended = 0
    private var written = 0
    /// Callers waiting for their lines to be written: the writer does not wait for a full batch then.
    private var waiters = 0
    private var condition = pthread_cond_t()
    private var drained = pthread_cond_t()
    private var mutex = pthread_mutex_t()
    private var started = false

    init(fileDescriptor: Int32, limit: Int = 8 << 20) {
        self.fileDescriptor = fileDescriptor
        self.limit = limit
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&condition, nil)
        pthread_cond_init(&drained, nil)
        pending.reserveCapacity(64 * 1024)
    }

    func append(_ bytes: UnsafeBufferPointer<UInt8>, wait: Bool) {
        pthread_mutex_lock(&mutex)
        if !started { start() }
        if pending.count + bytes.count > limit {
            dropped += 1
        } else {
            pending.append(contentsOf: bytes)
            appended += bytes.count
        }
        // The writer wakes by itself every few milliseconds; waking it for every line would cost a context switch
        // a request.
        if wait || pending.count >= Self.batchBytes { pthread_cond_signal(&condition) }
        if wait {
            let target = appended
            waiters += 1
            while written < target { pthread_cond_wait(&drained, &mutex) }
            waiters -= 1
        }
        pthread_mutex_unlock(&mutex)
    }

    func flush() {
        pthread_mutex_lock(&mutex)
        pthread_cond_signal(&condition)
        let target = appended
        waiters += 1
        while started && written < target { pthread_cond_wait(&drained, &mutex) }
        waiters -= 1
        pthread_mutex_unlock(&mutex)
    }

    /// Starts the writer thread (under the lock) and flushes at exit.
    private func start() {
        started = true
        let thread = Thread { [self] in run() }
        thread.name = "linkrunway-log"
        thread.start()
        if fileDescriptor == 2 { atexit { LogSink.standardError.flush() } }
    }

    /// How often the writer looks for lines, and how many bytes make it look at once.
    static let interval = 5_000_000  // nanoseconds
    static let batchBytes = 64 * 1024

    private func run() {
        var batch: [UInt8] = []
        batch.reserveCapacity(Self.batchBytes)
        while true {
            pthread_mutex_lock(&mutex)
            // Wait for a full batch, a caller waiting for its line, or the interval with something to write.
            while pending.isEmpty || (pending.count < Self.batchBytes && waiters == 0) {
                var now = timespec()
                clock_gettime(CLOCK_REALTIME, &now)
                var until = timespec(tv_sec: now.tv_sec, tv_nsec: now.tv_nsec + Self.interval)
                if until.tv_nsec >= 1_000_000_000 {
                    until.tv_sec += 1
                    until.tv_nsec -= 1_000_000_000
                }
                if pthread_cond_timedwait(&condition, &mutex, &until) == ETIMEDOUT && !pending.isEmpty { break }
            }
            swap(&batch, &pending)
            let lost = dropped
            dropped = 0
            pthread_mutex_unlock(&mutex)
            let handed = batch.count
            if lost > 0 {
                batch += Array("{\"ts\":\"\(Logger.timestamp())\",\"level\":\"warn\",\"msg\":\"log lines dropped: the log could not keep up\",\"lines\":\(lost)}\n".utf8)
            }
            writeAll(batch)
            pthread_mutex_lock(&mutex)
            written += handed
            pthread_cond_broadcast(&drained)
            pthread_mutex_unlock(&mutex)
            batch.removeAll(keepingCapacity: true)
        }
    }

    private func writeAll(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = Foundation.write(fileDescriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if n > 0 {
                    offset += n
                } else if n < 0 && errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }
}

/// Logs one JSON line per request: id, method, route pattern, status and duration. Never the path (it carries install
/// ids and referral codes, which deleting an install could not reach in a log), the query, headers or body. The line
/// is formatted straight into bytes and queued for the log's writer thread.
public struct AccessLogMiddleware: Middleware {
    let logger: Logger

    public init(logger: Logger) { self.logger = logger }

    public func handle(_ request: HTTPRequest, context: RequestContext, next: Responder) async throws -> HTTPResponse {
        let response = try await next(request, context)
        log(request, context, response)
        return response
    }

    public func handleImmediately(_ request: HTTPRequest, context: RequestContext, next: ImmediateResponder) throws -> HTTPResponse? {
        guard var response = try next(request, context) else { return nil }
        if let release = response.release {
            // Logged when the answer goes out, with its status then.
            response.release = release.map { [self] final in
                log(request, context, final)
                return final
            }
        } else {
            log(request, context, response)
        }
        return response
    }

    private func log(_ request: HTTPRequest, _ context: RequestContext, _ response: HTTPResponse) {
        if logger.enabled(.info) {
            let elapsed = context.startedAt.duration(to: .now)
            let microseconds = elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000
            logger.write(line: Self.line(requestId: context.requestId, method: request.method, route: context.route?.pattern ?? "unmatched",
                                         status: response.status, microseconds: microseconds, bytes: response.body.count))
        }
    }

    /// `{"ts":…,"level":"info","msg":"request","requestId":…,"method":…,"route":…,"status":…,"durationMs":…,"bytes":…}`
    /// and a newline, as `Logger` would write it.
    static func line(requestId: String, method: String, route: String, status: Int, microseconds: Int64, bytes: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(224)
        out.append(contentsOf: #"{"ts":""#.utf8)
        LogBytes.timestamp(&out)
        out.append(contentsOf: #"","level":"info","msg":"request","requestId":"#.utf8)
        LogBytes.string(&out, requestId)
        out.append(contentsOf: #","method":"#.utf8)
        LogBytes.string(&out, method)
        out.append(contentsOf: #","route":"#.utf8)
        LogBytes.string(&out, route)
        out.append(contentsOf: #","status":"#.utf8)
        LogBytes.integer(&out, Int64(status))
        out.append(contentsOf: #","durationMs":"#.utf8)
        LogBytes.integer(&out, max(0, microseconds) / 1000)
        out.append(UInt8(ascii: "."))
        LogBytes.integer(&out, max(0, microseconds) % 1000, width: 3)
        out.append(contentsOf: #","bytes":"#.utf8)
        LogBytes.integer(&out, Int64(bytes))
        out.append(contentsOf: "}\n".utf8)
        return out
    }
}

extension Logger {
    /// Queues a line formatted elsewhere (ending in a newline) for the writer thread.
    func write(line: [UInt8]) { sink.write(bytes: line) }
}

/// Appends JSON pieces to a byte buffer without making Strings.
enum LogBytes {
    /// UTC now as `2026-11-30T05:19:19.123`, the format of `Logger.timestamp()` without its `Z`, then the `Z`.
    static func timestamp(_ out: inout [UInt8]) {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        let (year, month, day) = civil(days: Int64(spec.tv_sec).dividedFloor(by: 86_400))
        let second = Int64(spec.tv_sec) - Int64(spec.tv_sec).dividedFloor(by: 86_400) * 86_400
        integer(&out, year, width: 4)
        out.append(UInt8(ascii: "-"))
        integer(&out, month, width: 2)
        out.append(UInt8(ascii: "-"))
        integer(&out, day, width: 2)
        out.append(UInt8(ascii: "T"))
        integer(&out, second / 3600, width: 2)
        out.append(UInt8(ascii: ":"))
        integer(&out, second / 60 % 60, width: 2)
        out.append(UInt8(ascii: ":"))
        integer(&out, second % 60, width: 2)
        out.append(UInt8(ascii: "."))
        integer(&out, Int64(spec.tv_nsec / 1_000_000), width: 3)
        out.append(UInt8(ascii: "Z"))
    }

    /// The proleptic Gregorian date of a day counted from 1970-01-01 (without `gmtime_r`, which takes the time zone's
    /// lock on every call).
    static func civil(days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = z.dividedFloor(by: 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// A non-negative integer in decimal, zero-padded to `width`.
    static func integer(_ out: inout [UInt8], _ value: Int64, width: Int = 1) {
        let value = UInt64(max(0, value))
        var digits = 1
        var power: UInt64 = 1
        while value / power >= 10 {
            power *= 10
            digits += 1
        }
        for _ in digits..<max(width, digits) { out.append(UInt8(ascii: "0")) }
        while power > 0 {
            out.append(UInt8(ascii: "0") + UInt8((value / power) % 10))
            power /= 10
        }
    }

    /// A JSON string: quotes, backslashes and control characters escaped.
    static func string(_ out: inout [UInt8], _ text: String) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                out.append(UInt8(ascii: "\\"))
                out.append(byte)
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 15)]])
            default:
                out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

extension Int64 {
    /// Division rounding toward negative infinity.
    func dividedFloor(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
