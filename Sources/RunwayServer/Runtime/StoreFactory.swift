import RunwaySQLite
import RunwayStore

/// Opens the backend a database location names.
public enum StoreFactory {
    public struct Unsupported: Error, CustomStringConvertible {
        public let description: String
    }

    public static func open(_ location: DatabaseLocation, synchronousFull: Bool = true,
                            observer: (any StoreObserver)? = nil) throws -> any Store {
        switch location {
        case .sqlite(let path):
            return try SQLiteStore(path: path, options: .init(synchronousFull: synchronousFull), observer: observer)
        case .postgres:
            throw Unsupported(description: "PostgreSQL is not supported by this build yet; use sqlite:<path>")
        }
    }
}
