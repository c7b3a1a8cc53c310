import Foundation
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

    /// Waits until the store answers a read, trying again every half second while it is unavailable (a database still
    /// starting, or too busy to take a connection in time), for at most `seconds`; then the last error is thrown.
    /// `waiting` is called once, with that error, when the first try fails.
    public static func awaitAnswer(_ store: any Store, seconds: Double, waiting: (any Error) -> Void) async throws {
        let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
        var told = false
        while true {
            do {
                return try await store.ping()
            } catch StoreError.unavailable(let reason) where ContinuousClock.now < deadline {
                if !told { waiting(StoreError.unavailable(reason)) }
                told = true
                try await Task.sleep(for: .milliseconds(500))
            }
        }
    }
}
