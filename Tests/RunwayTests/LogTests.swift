import Foundation
@testable import RunwayHTTP
import RunwayTestKit
import Testing

@Suite("Logs")
struct LogTests {
    @Test("an access line is one JSON object per line, with its fields escaped and its duration in milliseconds")
    func accessLine() throws {
        let bytes = AccessLogMiddleware.line(requestId: "r-1", method: "GE\"T\u{1}", route: "/{path...}", status: 302, microseconds: 12_034, bytes: 0)
        #expect(bytes.last == UInt8(ascii: "\n") && bytes.filter { $0 == UInt8(ascii: "\n") }.count == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        #expect(object["level"] as? String == "info" && object["msg"] as? String == "request" && object["requestId"] as? String == "r-1")
        #expect(object["method"] as? String == "GE\"T\u{1}" && object["route"] as? String == "/{path...}")
        #expect(object["status"] as? Int == 302 && object["bytes"] as? Int == 0)
        #expect((object["durationMs"] as? NSNumber)?.doubleValue == 12.034)
        let stamp = try #require(object["ts"] as? String)
        #expect(stamp.count == 24 && stamp.hasSuffix("Z") && ISO8601DateFormatter.withMilliseconds.date(from: stamp) != nil, "\(stamp)")
        #expect(stamp.prefix(16) == Logger.timestamp().prefix(16), "the same clock and format as every other line")
        let quick = try #require(try JSONSerialization.jsonObject(with: Data(AccessLogMiddleware.line(
            requestId: "x", method: "GET", route: "/healthz", status: 200, microseconds: 7, bytes: 33))) as? [String: Any])
        #expect((quick["durationMs"] as? NSNumber)?.doubleValue == 0.007)
    }

    @Test("dates are the C library's, day by day from 1900 to 2200")
    func civilDates() {
        var mismatches: [Int64] = []
        for day in Int64(-25_567)...Int64(84_000) {
            var seconds = time_t(day * 86_400)
            var parts = tm()
            gmtime_r(&seconds, &parts)
            let (year, month, date) = LogBytes.civil(days: day)
            if (year, month, date) != (Int64(parts.tm_year) + 1900, Int64(parts.tm_mon) + 1, Int64(parts.tm_mday)) { mismatches.append(day) }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
    }

    @Test("the writer thread keeps each thread's lines in order, and a warn line returns only once every earlier line is written")
    func orderAndWait() async throws {
        let path = NSTemporaryDirectory() + "linkrunway-log-\(UUID()).log"
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        defer { close(fd); unlink(path) }
        let writer = LineWriter(fileDescriptor: fd)
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<4 {
                group.addTask {
                    for n in 0..<2_000 {
                        Array("{\"t\":\(thread),\"n\":\(n)}\n".utf8).withUnsafeBufferPointer { writer.append($0) }
                    }
                }
            }
        }
        Array("{\"t\":9,\"n\":0,\"level\":\"warn\"}\n".utf8).withUnsafeBufferPointer { writer.appendNow($0) }
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 8_001)
        #expect(lines.last?.contains("warn") == true)
        for thread in 0..<4 {
            let numbers = lines.filter { $0.hasPrefix("{\"t\":\(thread),") }.map { Int($0.split(separator: ":").last!.dropLast())! }
            #expect(numbers == Array(0..<2_000))
        }
    }

    @Test("when the file descriptor stalls, lines past the limit are dropped without blocking, and counted once it drains")
    func dropsWhenStalled() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        _ = fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) | O_NONBLOCK)
        let writer = LineWriter(fileDescriptor: ends[1], limit: 64 * 1024)
        let line = Array((String(repeating: "x", count: 99) + "\n").utf8)
        // Nobody reads: the pipe (64 KiB) and the buffer (64 KiB) fill, and the rest is dropped; appending never waits.
        for _ in 0..<5_000 { line.withUnsafeBufferPointer { writer.append($0) } }
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, !String(decoding: received, as: UTF8.self).contains("log lines dropped") {
            // Drain, then add one more line so the writer wakes and reports what it dropped.
            let n = read(ends[0], &buffer, buffer.count)
            if n > 0 { received.append(contentsOf: buffer[..<n]) }
            if n < buffer.count {
                line.withUnsafeBufferPointer { writer.append($0) }
                usleep(1_000)
            }
        }
        // The report can reach the pipe before lines still in the buffer: read until every line is either here or
        // counted as dropped (a loaded machine can take its time), then until nothing comes for a while.
        func accounted() -> Bool {
            let lines = String(decoding: received, as: UTF8.self).split(separator: "\n")
            let reported = lines.filter { $0.contains("log lines dropped") }.compactMap { line -> Int? in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["lines"] as? Int
            }.reduce(0, +)
            return lines.filter { $0.hasPrefix("xxx") }.count + reported >= 5_000
        }
        var quietSince = Date()
        while Date() < deadline, !accounted() || Date().timeIntervalSince(quietSince) < 0.3 {
            let n = read(ends[0], &buffer, buffer.count)
            if n > 0 { received.append(contentsOf: buffer[..<n]); quietSince = Date() } else { usleep(5_000) }
        }
        let text = String(decoding: received, as: UTF8.self)
        let reports = text.split(separator: "\n").filter { $0.contains("log lines dropped") }
        #expect(!reports.isEmpty, "the dropped lines are reported")
        let dropped = try reports.reduce(0) { total, report in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(report.utf8)) as? [String: Any])
            return total + (try #require(object["lines"] as? Int))
        }
        let kept = text.split(separator: "\n").filter { $0.hasPrefix("xxx") }.count
        #expect(dropped > 0 && kept < 5_000 && kept + dropped >= 5_000, "\(kept) kept, \(dropped) dropped")
    }
}

extension ISO8601DateFormatter {
    nonisolated(unsafe) static let withMilliseconds: ISO8601DateFormatter = {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }()
}
