import Foundation
import RunwayStore

/// Who this server process is, as other processes sharing the database see it: a random id, the machine (host name
/// and Linux boot id), the process id and the process's start time. Work a process claims (an `Idempotency-Key` in
/// progress) names its owner this way, so another process can tell at once whether that owner still runs.
public struct ServerInstance: Sendable, Equatable {
    /// Random per process start; the key of its heartbeat row.
    public let id: String
    /// The host name and the kernel's boot id: two owners with the same machine can look each other up in `/proc`.
    public let machine: String
    public let pid: Int32
    /// The process's start time in clock ticks since boot (`/proc/<pid>/stat`, field 22), which tells a reused pid apart.
    public let startTicks: UInt64

    /// This process.
    public static let current = ServerInstance(id: Identifier.make("inst"), machine: machineIdentity(), pid: getpid(),
                                               startTicks: startTicks(of: getpid()) ?? 0)

    package init(id: String, machine: String, pid: Int32, startTicks: UInt64) {
        self.id = id
        self.machine = machine
        self.pid = pid
        self.startTicks = startTicks
    }

    /// `<id> <pid> <startTicks> <machine>`, as stored beside the work it claims.
    public var owner: String { "\(id) \(pid) \(startTicks) \(machine)" }

    /// Parses an `owner` text; nil for one this version cannot read.
    public init?(owner: String) {
        let parts = owner.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 4, let pid = Int32(parts[1]), let ticks = UInt64(parts[2]) else { return nil }
        self.init(id: String(parts[0]), machine: String(parts[3]), pid: pid, startTicks: ticks)
    }

    /// Whether this owner is still running, as far as this machine can tell: for an owner on this machine, its process
    /// exists with the same start time; for one elsewhere, nil (ask its heartbeat).
    public var isRunningHere: Bool? {
        guard machine == ServerInstance.current.machine, startTicks != 0 else { return nil }
        return Self.startTicks(of: pid) == startTicks
    }

    /// A heartbeat younger than this says the owner on another machine runs.
    public static let heartbeatFreshMilliseconds: Int64 = 10_000
    /// How often a running server writes its heartbeat.
    public static let heartbeatInterval: Duration = .seconds(2)

    /// Records (or refreshes) this process's heartbeat with the newest schema step it knows, and forgets those of
    /// processes silent for a day.
    package static func beat(_ db: any SQLExecutor, now: Int64, newestStep: String) throws {
        let me = ServerInstance.current
        try db.execute("""
            INSERT INTO server_instances (id, owner, started_at, heartbeat_at, newest_step) VALUES (\(me.id), \(me.owner), \(now), \(now), \(newestStep))
            ON CONFLICT (id) DO UPDATE SET heartbeat_at = \(now), newest_step = \(newestStep)
            """)
        try db.execute("DELETE FROM server_instances WHERE heartbeat_at < \(now - 86_400_000)")
    }

    /// How many other processes with a fresh heartbeat run a version older than one knowing `newestStep`: their
    /// heartbeat names an older step, or none (a release before 0.3.0). A release before 0.2.0 writes no heartbeat at
    /// all, so it is never counted: docs/deployment.md asks for all of those to be stopped before an upgrade.
    package static func olderAlive(_ db: any SQLExecutor, now: Int64, newestStep: String) throws -> Int64 {
        try db.count("""
            SELECT COUNT(*) AS n FROM server_instances WHERE id <> \(ServerInstance.current.id) AND heartbeat_at >= \(now - heartbeatFreshMilliseconds)
            AND (newest_step IS NULL OR newest_step < \(newestStep))
            """)
    }

    /// A clean stop: this process no longer owns anything.
    package static func leave(_ db: any SQLExecutor) throws {
        try db.execute("DELETE FROM server_instances WHERE id = \(ServerInstance.current.id)")
    }

    /// Whether the owner of a claim still runs: this machine's `/proc` decides for its own processes, the heartbeat
    /// for others; nil when neither can tell (an owner elsewhere that never wrote a heartbeat).
    package static func isRunning(owner: String, _ db: any SQLExecutor, now: Int64) throws -> Bool? {
        guard let instance = ServerInstance(owner: owner) else { return nil }
        if let here = instance.isRunningHere { return here }
        guard let row = try db.first("SELECT heartbeat_at FROM server_instances WHERE id = \(instance.id)", as: Heartbeat.self) else { return nil }
        return row.heartbeatAt >= now - heartbeatFreshMilliseconds
    }

    package static func machineIdentity() -> String {
        var name = [UInt8](repeating: 0, count: 256)
        let host = gethostname(&name, name.count - 1) == 0 ? String(decoding: name.prefix { $0 != 0 }, as: UTF8.self) : "unknown"
        let boot = (try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        return host + "/" + boot
    }

    /// Field 22 of `/proc/<pid>/stat`, read after the command name's closing parenthesis (the name may hold spaces).
    package static func startTicks(of pid: Int32) -> UInt64? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")  // trap-safe: close is an index of stat
        // Fields after the name start at 3 (state); the start time is field 22.
        guard fields.count > 19 else { return nil }
        return UInt64(fields[19])
    }

    private struct Heartbeat: Decodable {
        let heartbeatAt: Int64
    }
}
