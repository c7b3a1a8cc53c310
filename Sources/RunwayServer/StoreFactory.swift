import RunwayCapabilities
import RunwayConsole
import RunwayKit
import RunwayPostgres
import RunwaySQLite
import RunwayStore

/// Opens the backend a database location names.
public enum StoreFactory {
    public static func open(_ location: DatabaseLocation, synchronousFull: Bool = true,
                            observer: (any StoreObserver)? = nil) throws -> any Store {
        switch location {
        case .sqlite(let path):
            return try SQLiteStore(path: path, options: .init(synchronousFull: synchronousFull), observer: observer)
        case .postgres(let url):
            return PostgresStore(url: url, observer: observer)
        }
    }
}
