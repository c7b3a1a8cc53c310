import Foundation

/// Logs one JSON line per request: id, method, route pattern, status and duration. Never the path (it carries install
/// ids and referral codes, which deleting an install could not reach in a log), the query, headers or body.
public struct AccessLogMiddleware: Middleware {
    public let log: AccessLog

    public init(logger: Logger) { log = AccessLog(logger: logger) }

    public func handle(_ request: HTTPRequest, context: RequestContext, next: Responder) async throws -> HTTPResponse {
        let response = try await next(request, context)
        log.record(request.method, context, response)
        return response
    }

    /// The line `AccessLog` writes, as bytes (for tests).
    static func line(requestId: String, method: String, route: String, status: Int, microseconds: Int64, bytes: Int) -> [UInt8] {
        var out: [UInt8] = []
        AccessLog.format(&out, requestId: requestId, method: method, route: route, status: status, microseconds: microseconds, bytes: bytes)
        return out
    }
}

/// The access line of a request, formatted straight into the log writer's buffer of the calling thread (no String, no
/// array of its own) at `info`.
public struct AccessLog: Sendable {
    let logger: Logger

    public init(logger: Logger) { self.logger = logger }

    /// Logs `response` to a request with `method`, matched (or not) as `context` says.
    public func record(_ method: String, _ context: RequestContext, _ response: HTTPResponse) {
        guard logger.enabled(.info) else { return }
        let elapsed = context.startedAt.duration(to: .now)
        let microseconds = elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000
        let route = context.route?.pattern ?? "unmatched"
        logger.sink.write { out in
            Self.format(&out, requestId: context.requestId, method: method, route: route, status: response.status,
                        microseconds: microseconds, bytes: response.body.count)
        }
    }

    /// `{"ts":…,"level":"info","msg":"request","requestId":…,"method":…,"route":…,"status":…,"durationMs":…,"bytes":…}`
    /// and a newline, as `Logger` would write it, appended to `out`.
    static func format(_ out: inout [UInt8], requestId: String, method: String, route: String, status: Int, microseconds: Int64, bytes: Int) {
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
    }
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
