import LinkRunwayAPI
import RunwayStore

/// Rows a database can hold from before amounts were bounded that no write accepts now: an event's amount beyond
/// `WireLimits.money`, or a daily figure, commission or ledger entry beyond what any sum of bounded amounts reaches.
/// Reads that add such rows answer `422 total_out_of_range` instead of a figure; `linkrunway migrate`, the server's
/// start and `linkrunway doctor --database-url` name them so an operator can correct them.
public enum StoredTotals {
    /// The largest stored aggregate that bounded writes can build (a thousand times the money ceiling).
    public static let largestAggregate: Int64 = WireLimits.money * 1000

    /// One kind of row out of range: where, how many, and how to look at them.
    public struct Finding: Sendable, Equatable {
        public let table: String
        public let rows: Int64
        public let query: String

        /// A sentence for the migration report, the start-up log and doctor.
        public var sentence: String {
            "\(rows) row(s) of \(table) hold amounts beyond what the API now accepts (stored before amounts were bounded); "
                + "reports that add them answer 422 total_out_of_range until they are corrected. Find them with: \(query)"
        }
    }

    static let checks: [(table: String, limit: Int64)] = [
        ("events", WireLimits.money),
        ("link_stats", largestAggregate),
        ("commissions", largestAggregate),
        ("ledger_entries", largestAggregate),
    ]

    /// Counts the rows out of range, table by table; empty on a sound database.
    public static func findings(_ store: any Store) async throws -> [Finding] {
        try await store.read { db in
            try checks.compactMap { check in
                let condition = "amount > \(check.limit) OR amount < -\(check.limit)"
                let count = try db.count("SELECT COUNT(*) AS n FROM \(raw: check.table) WHERE \(raw: condition)")
                guard count > 0 else { return nil }
                return Finding(table: check.table, rows: count, query: "SELECT * FROM \(check.table) WHERE \(condition)")
            }
        }
    }
}
