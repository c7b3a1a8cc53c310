import Foundation
import Synchronization

/// The real `linkrunway` binary (built with the tests) running `serve` in a child process.
package final class ServerProcess: @unchecked Sendable {
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
        package init(description: String) { self.description = description }
    }

    /// The binary next to the test bundle.
    package static var binary: URL {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [directory, directory.deletingLastPathComponent()] {
            let url = candidate.appendingPathComponent("linkrunway")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return URL(fileURLWithPath: ".build/debug/linkrunway")
    }

    package private(set) var process: Subprocess!
    private let output = SharedText()
    private let errors = SharedText()
    package private(set) var port: UInt16 = 0

    /// Starts `linkrunway serve` on a free port (or `port`) with the database at `databaseURL` and waits until it listens.
    /// The secret key file of every PostgreSQL database this test process serves.
    package static let postgresKeyFile = NSTemporaryDirectory() + "linkrunway-tests-\(getpid()).key"

    package init(databaseURL: String, environment: [String: String] = [:], port: UInt16 = 0) async throws {
        // A SQLite database keeps its secret key file beside it; PostgreSQL ones share one for this test process.
        var defaults = ["PATH": "/usr/bin:/bin", "LINKRUNWAY_LOG_LEVEL": "warn"]
        if databaseURL.hasPrefix("postgres") { defaults["LINKRUNWAY_SECRET_KEY_FILE"] = Self.postgresKeyFile }
        let out = try Subprocess.pipe(), err = try Subprocess.pipe()
        defer {
            // The child has its own copies of the write ends; ours must close so that a reader sees the end of the pipe.
            close(out[1])
            close(err[1])
        }
        process = try Subprocess(Self.binary.path, ["serve", "--port", String(port), "--database-url", databaseURL],
                                 environment: defaults.merging(environment) { $1 }, stdout: out[1], stderr: err[1])
        Self.drain(out[0], into: output)
        Self.drain(err[0], into: errors)
        // Generous: a loaded two-core machine running the whole suite can take many seconds to start a server.
        let deadline = ContinuousClock.now + .seconds(90)
        while ContinuousClock.now < deadline {
            if let range = stdout.range(of: "listening on http://127.0.0.1:") {
                let digits = stdout[range.upperBound...].prefix(while: \.isNumber)
                if let port = UInt16(digits) {
                    self.port = port
                    return
                }
            }
            if !process.isRunning { throw Failure(description: "serve exited: \(stderr)") }
            try await Task.sleep(for: .milliseconds(20))
        }
        process.signal(SIGTERM)
        throw Failure(description: "serve did not start: \(stderr)")
    }

    /// Reads a pipe to its end on a thread of its own. (`readabilityHandler` rides on libdispatch's event loop, which
    /// crashed the whole test process when a pipe closed under it.)
    package static func drain(_ descriptor: Int32, into text: SharedText) {
        Thread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if n > 0 {
                    text.append(Data(buffer[..<n]))
                } else if n < 0 && errno == EINTR {
                    continue
                } else {
                    break
                }
            }
            close(descriptor)
        }.start()
    }

    /// A test that fails half-way must not leave a server behind.
    deinit {
        guard let process else { return }
        process.signal(SIGKILL)
        Thread { process.wait() }.start()
    }

    package var stdout: String { output.text }
    package var stderr: String { errors.text }

    /// The admin key printed on first start, if this start printed one.
    package var printedAdminKey: String? {
        stdout.split(whereSeparator: \.isWhitespace).first { $0.hasPrefix("lr_ak_") }.map(String.init)
    }

    /// Sends `signal` and waits for the process to end (killing it after 60 seconds, generous for a loaded machine);
    /// returns its exit status.
    package func stop(signal: Int32) async throws -> Int32 {
        let pid = process.pid
        kill(pid, signal)
        let deadline = ContinuousClock.now + .seconds(60)
        while process.isRunning {
            if ContinuousClock.now > deadline {
                let state = Self.kernelState(pid)
                kill(pid, SIGKILL)
                throw Failure(description: "the server did not stop on signal \(signal) (its state in /proc: \(state))")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        return process.wait()
    }

    /// The state letter of `pid` in `/proc/<pid>/stat` (`Z` once it died and awaits reaping), for failure messages.
    package static func kernelState(_ pid: Int32) -> String {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let end = stat.lastIndex(of: ")") else { return "gone" }
        return String(stat[stat.index(after: end)...].dropFirst().prefix(1))
    }
}

/// Text appended from one thread and read from another.
package final class SharedText: Sendable {
    private let storage = Mutex<String>("")
    package func append(_ data: Data) { storage.withLock { $0 += String(decoding: data, as: UTF8.self) } }
    package var text: String { storage.withLock { $0 } }
}
