import Foundation
import Synchronization

/// A child process started with `posix_spawn`, for tests. Foundation's `Process.run` on Linux crashes now and then
/// (it copies whole `dirent` names while listing `/proc/self/fd` and reads past glibc's buffer: swift-corelibs-foundation
/// pull request 5472, not in Swift 6.3.1), which took down whole test runs that start many processes.
package final class Subprocess: Sendable {
    package struct Failure: Error, CustomStringConvertible { package let description: String }

    package let pid: pid_t
    /// The exit code, or the signal that ended it, once reaped.
    private let status = Mutex<Int32?>(nil)

    /// Starts `executable` with `arguments`; `environment` replaces the test process's when given. Standard input,
    /// output and error are the descriptors given, or `/dev/null`. No other descriptor of the test process is inherited.
    package init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil, directory: String? = nil,
         stdin: Int32? = nil, stdout: Int32? = nil, stderr: Int32? = nil) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (source, target) in [(stdin, Int32(0)), (stdout, 1), (stderr, 2)] {
            if let source {
                posix_spawn_file_actions_adddup2(&actions, source, target)
            } else {
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            }
        }
        _ = Self.closeFrom(&actions, 3)
        if let directory { _ = Self.changeDirectory(&actions, directory) }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let pairs = environment.map { $0.map { "\($0.key)=\($0.value)" } } ?? ProcessInfo.processInfo.environment.map { "\($0.key)=\($0.value)" }
        let envp = pairs.map { strdup($0) } + [nil]
        defer { envp.forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard result == 0 else { throw Failure(description: "cannot start \(executable): \(String(cString: strerror(result)))") }
        self.pid = pid
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which Swift's Glibc module does not export.
    private static let closeFrom: @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32 = {
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { fatalError("glibc 2.34 or later is needed") }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()

    /// glibc's `posix_spawn_file_actions_addchdir_np` (2.29 and later), not exported either.
    private static let changeDirectory: @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32 = {
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addchdir_np") else { fatalError("glibc 2.29 or later is needed") }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32).self)
    }()

    /// What a finished run gave.
    package struct Output: Sendable {
        package let status: Int32
        package let stdout: String
        package let stderr: String
    }

    /// Runs `executable` to its end (blocking; call it through `offloaded`), with `input` on its standard input, and
    /// kills it if it is still running after `timeoutSeconds`.
    package static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil, directory: String? = nil,
                    input: String? = nil, timeoutSeconds: Double = 300) throws -> Output {
        let stdin = try pipe(), stdout = try pipe(), stderr = try pipe()
        let process: Subprocess
        do {
            defer { close(stdin[0]); close(stdout[1]); close(stderr[1]) }
            process = try Subprocess(executable, arguments, environment: environment, directory: directory,
                                     stdin: stdin[0], stdout: stdout[1], stderr: stderr[1])
        } catch {
            [stdin[1], stdout[0], stderr[0]].forEach { close($0) }
            throw error
        }
        if let input { _ = Array(input.utf8).withUnsafeBytes { write(stdin[1], $0.baseAddress, $0.count) } }
        close(stdin[1])
        let watchdog = DispatchWorkItem { process.signal(SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeoutSeconds, execute: watchdog)
        defer { watchdog.cancel() }
        let errors = SharedText()
        let done = DispatchSemaphore(value: 0)
        Thread {
            readAll(stderr[0], into: errors)
            done.signal()
        }.start()
        let output = SharedText()
        readAll(stdout[0], into: output)
        done.wait()
        return Output(status: process.wait(), stdout: output.text, stderr: errors.text)
    }

    /// A pipe whose ends close on exec (children started here close every inherited descriptor anyway).
    package static func pipe() throws -> [Int32] {
        var ends: [Int32] = [0, 0]
        guard Glibc.pipe(&ends) == 0 else { throw Failure(description: "pipe failed: errno \(errno)") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return ends
    }

    private static func readAll(_ descriptor: Int32, into text: SharedText) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if n > 0 { text.append(Data(buffer[..<n])) } else if n < 0 && errno == EINTR { continue } else { break }
        }
        close(descriptor)
    }

    /// True until the process has ended (and then reaps it).
    package var isRunning: Bool { reap(blocking: false) == nil }

    /// Waits for the end; returns the exit code, or the number of the signal that ended it.
    @discardableResult
    package func wait() -> Int32 { reap(blocking: true)! }

    /// The exit code or signal, once ended.
    package var terminationStatus: Int32? { status.withLock { $0 } }

    package func signal(_ number: Int32) { if isRunning { kill(pid, number) } }

    private func reap(blocking: Bool) -> Int32? {
        if let known = status.withLock({ $0 }) { return known }
        var raw: Int32 = 0
        while true {
            let result = waitpid(pid, &raw, blocking ? 0 : WNOHANG)
            if result == -1 && errno == EINTR { continue }
            if result == pid { break }
            if result == 0 { return nil }
            // Reaped by another caller, which is about to record the status.
            while blocking, status.withLock({ $0 }) == nil { usleep(1_000) }
            return status.withLock { $0 }
        }
        // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import as functions.
        let ended = raw & 0x7f == 0 ? (raw >> 8) & 0xff : raw & 0x7f
        status.withLock { $0 = ended }
        return ended
    }
}
