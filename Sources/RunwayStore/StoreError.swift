/// Failures every backend reports the same way; the HTTP layer maps them to statuses in one place.
public enum StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A unique or primary-key constraint rejected the write (HTTP 409).
    case conflict(String)
    /// A foreign key or check constraint rejected the write.
    case constraint(String)
    /// The database is busy, locked, unreachable or closing (HTTP 503); retrying later may work.
    case unavailable(String)
    /// A deadlock or serialization failure with another transaction. The store runs such a write again in a
    /// transaction of its own and reports this (HTTP 503) only when that keeps failing.
    case transactionConflict(String)
    /// A number would pass what a 64-bit integer holds: a write that would take a stored total past it, or totals
    /// stored before totals were checked that add up past it (HTTP 422 `total_out_of_range`, never a trap).
    case outOfRange(String)
    /// The database holds something this binary does not understand (a bad column).
    case corrupt(String)
    /// A newer version migrated the database: this binary must not touch it.
    case newerSchema(String)
    /// Anything else the backend reported.
    case failed(String)

    public var description: String {
        switch self {
        case .conflict(let m): return "conflict: \(m)"
        case .constraint(let m): return "constraint violated: \(m)"
        case .unavailable(let m): return "store unavailable: \(m)"
        case .transactionConflict(let m): return "transaction conflict: \(m)"
        case .outOfRange(let m): return "out of range: \(m)"
        case .corrupt(let m): return "store corrupt: \(m)"
        case .newerSchema(let m): return "the database was migrated by a newer linkrunway: \(m)"
        case .failed(let m): return "store failed: \(m)"
        }
    }
}
