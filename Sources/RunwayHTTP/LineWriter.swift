import Foundation
import Synchronization

/// One thread writes what every other thread appends. Each appending thread has a buffer of its own: a line is
/// formatted straight into it under a lock that only its thread takes for every line and the writer takes every few
/// milliseconds to swap the buffer out, so appending is almost never contended and never waits for the file
/// descriptor. When `limit` bytes wait for the writer (the file descriptor is not keeping up), further lines are
/// dropped and counted, and a line saying how many is written once there is room again. Lines of one thread stay in
/// order; lines of different threads may interleave out of order within a few milliseconds (each carries its time).
/// `appendNow` (warn and error lines) writes every line appended before it first, then its own, before it returns.
final class LineWriter: @unchecked Sendable {
    let fileDescriptor: Int32
    /// The most bytes waiting for the writer; past it, lines are dropped.
    let limit: Int
    /// Bytes appended to the threads' buffers and not yet written.
    private let pending = Atomic<Int>(0)
    private let dropped = Atomic<Int>(0)
    /// Every thread's buffer, for the writer to collect.
    private let buffers = Mutex<[ThreadLines]>([])
    private var key = pthread_key_t()
    /// Held while draining the buffers and writing, so a line written now follows every line appended before it.
    private var writing = pthread_mutex_t()
    private var wake = pthread_cond_t()
    private var wakeLock = pthread_mutex_t()
    private let started = Atomic<Bool>(false)
    /// Set while the writer waits with nothing to write and no timer: the next line wakes it.
    private let sleeping = Atomic<Bool>(false)

    init(fileDescriptor: Int32, limit: Int = 8 << 20) {
        self.fileDescriptor = fileDescriptor
        self.limit = limit
        pthread_mutex_init(&writing, nil)
        pthread_mutex_init(&wakeLock, nil)
        pthread_cond_init(&wake, nil)
        // A thread that ends leaves its buffer to the writer, which writes what is left and forgets it.
        pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            Unmanaged<ThreadLines>.fromOpaque(pointer).takeRetainedValue().retire()
        }
    }

    /// How often the writer collects the buffers, and how many bytes in one buffer make it collect at once.
    static let interval = 5_000_000  // nanoseconds
    static let batchBytes = 64 * 1024

    /// Appends a line formatted by `format` straight into this thread's buffer, without waiting.
    func append(_ format: (inout [UInt8]) -> Void) {
        startIfNeeded()
        let lines = threadLines()
        let full = lines.withBytes { bytes -> Bool in
            let before = bytes.count
            format(&bytes)
            let added = bytes.count - before
            if pending.add(added, ordering: .sequentiallyConsistent).newValue > limit {
                pending.subtract(added, ordering: .relaxed)
                bytes.removeSubrange(before...)
                dropped.add(1, ordering: .relaxed)
            }
            return bytes.count >= Self.batchBytes
        }
        if full {
            pthread_cond_signal(&wake)
        } else if sleeping.load(ordering: .sequentiallyConsistent) {
            pthread_mutex_lock(&wakeLock)
            sleeping.store(false, ordering: .sequentiallyConsistent)
            pthread_cond_signal(&wake)
            pthread_mutex_unlock(&wakeLock)
        }
    }

    /// Appends bytes already formatted (whole lines, ending in a newline), without waiting.
    func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        append { $0.append(contentsOf: bytes) }
    }

    /// Writes every line appended so far, then `bytes`, and returns once they are written.
    func appendNow(_ bytes: UnsafeBufferPointer<UInt8>) {
        startIfNeeded()
        pthread_mutex_lock(&writing)
        var batch = collect()
        batch.append(contentsOf: bytes)
        writeAll(batch)
        pthread_mutex_unlock(&writing)
    }

    /// Returns once every line appended so far has been written.
    func flush() {
        guard started.load(ordering: .acquiring) else { return }
        pthread_mutex_lock(&writing)
        writeAll(collect())
        pthread_mutex_unlock(&writing)
    }

    /// This thread's buffer, made and registered on its first line.
    private func threadLines() -> ThreadLines {
        if let pointer = pthread_getspecific(key) { return Unmanaged<ThreadLines>.fromOpaque(pointer).takeUnretainedValue() }
        let lines = ThreadLines()
        buffers.withLock { $0.append(lines) }
        pthread_setspecific(key, Unmanaged.passRetained(lines).toOpaque())
        return lines
    }

    /// Takes what every buffer holds (forgetting the buffers of threads that ended), and the report of lines dropped.
    /// Called with `writing` held.
    private func collect() -> [UInt8] {
        var batch: [UInt8] = []
        let all = buffers.withLock { buffers -> [ThreadLines] in
            buffers.removeAll { $0.isRetired && $0.isEmpty }
            return buffers
        }
        for lines in all { lines.take(into: &batch) }
        pending.subtract(batch.count, ordering: .relaxed)
        let lost = dropped.exchange(0, ordering: .relaxed)
        if lost > 0 {
            batch += Array("{\"ts\":\"\(Logger.timestamp())\",\"level\":\"warn\",\"msg\":\"log lines dropped: the log could not keep up\",\"lines\":\(lost)}\n".utf8)
        }
        return batch
    }

    private func startIfNeeded() {
        guard !started.load(ordering: .relaxed), started.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else {
            return
        }
        let thread = Thread { [self] in run() }
        thread.name = "linkrunway-log"
        thread.start()
        if fileDescriptor == 2 { atexit { LogSink.standardError.flush() } }
    }

    /// Collects every few milliseconds while lines come; after a while with none it sleeps until the next line, so an
    /// idle server does not wake two hundred times a second.
    private func run() {
        var quietRounds = 0
        while true {
            pthread_mutex_lock(&wakeLock)
            if quietRounds >= Self.quietRoundsBeforeSleep {
                sleeping.store(true, ordering: .sequentiallyConsistent)
                // A line appended after the flag was set finds it and signals under this lock.
                while sleeping.load(ordering: .sequentiallyConsistent) && pending.load(ordering: .sequentiallyConsistent) == 0 {
                    pthread_cond_wait(&wake, &wakeLock)
                }
                sleeping.store(false, ordering: .sequentiallyConsistent)
            } else {
                var now = timespec()
                clock_gettime(CLOCK_REALTIME, &now)
                var until = timespec(tv_sec: now.tv_sec, tv_nsec: now.tv_nsec + Self.interval)
                if until.tv_nsec >= 1_000_000_000 {
                    until.tv_sec += 1
                    until.tv_nsec -= 1_000_000_000
                }
                _ = pthread_cond_timedwait(&wake, &wakeLock, &until)
            }
            pthread_mutex_unlock(&wakeLock)
            pthread_mutex_lock(&writing)
            let batch = collect()
            if !batch.isEmpty { writeAll(batch) }
            pthread_mutex_unlock(&writing)
            quietRounds = batch.isEmpty ? quietRounds + 1 : 0
        }
    }

    /// Rounds without a line before the writer sleeps until the next one.
    static let quietRoundsBeforeSleep = 20

    private func writeAll(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                // trap-safe: buffer is not empty inside this loop
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

/// The lines one thread appended and the writer has not taken yet.
final class ThreadLines: @unchecked Sendable {
    private var lock = pthread_mutex_t()
    private var bytes: [UInt8] = []
    private var retired = false

    init() {
        pthread_mutex_init(&lock, nil)
        bytes.reserveCapacity(LineWriter.batchBytes)
    }

    deinit { pthread_mutex_destroy(&lock) }

    func withBytes<T>(_ body: (inout [UInt8]) -> T) -> T {
        pthread_mutex_lock(&lock)
        defer { pthread_mutex_unlock(&lock) }
        return body(&bytes)
    }

    /// Moves the lines to the end of `batch`.
    func take(into batch: inout [UInt8]) {
        withBytes { bytes in
            batch.append(contentsOf: bytes)
            bytes.removeAll(keepingCapacity: !retired)
        }
    }

    func retire() { withBytes { _ in retired = true } }
    var isRetired: Bool { withBytes { _ in retired } }
    var isEmpty: Bool { withBytes { $0.isEmpty } }
}
