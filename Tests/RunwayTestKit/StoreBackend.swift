import Foundation
import RunwayPostgres
import RunwayStore
import RunwaySQLite

/// The backends the suites run against. Each makes fresh, empty storage (a SQLite file, a PostgreSQL database),
/// opens stores on it and removes it when the location is released.
package struct StoreBackend: Sendable {
    package let name: String
    package let open: @Sendable (_ location: String, _ observer: (any StoreObserver)?) throws -> any Store
    /// Async because making a PostgreSQL database blocks on the server: it runs on a thread of its own, never on the
    /// two threads every test shares.
    package let makeLocation: @Sendable () async throws -> StorageLocation

    package static let sqlite = StoreBackend(
        name: "SQLite",
        // Waits far beyond production's, so that a starved machine running the whole suite is not taken for an outage.
        open: { url, observer in
            try SQLiteStore(path: String(url.dropFirst("sqlite:".count)),
                            options: .init(readers: 2, busyTimeoutMilliseconds: 30_000, queueTimeout: 120), observer: observer)
        },
        makeLocation: {
            let directory = TemporaryDirectory()
            return StorageLocation(url: "sqlite:" + directory.path("store.db"), cleanup: { _ = directory })
        })

    /// The server `scripts/with-postgres.sh` (run by `make test`) starts, or nil; with the suites' connect timeout.
    package static let postgresURL: String? = ProcessInfo.processInfo.environment["LINKRUNWAY_TEST_POSTGRES_URL"]
        .flatMap { $0.isEmpty ? nil : patient(databaseURL: $0) }

    /// `url` with libpq's connect timeout set to a minute. The product's five seconds is for a server that answers: when
    /// the whole suite opens a hundred connections at once on two busy cores, a backend can take longer to start, and
    /// that is not an outage (as with SQLite's busy timeout above).
    package static func patient(databaseURL url: String) -> String {
        let base = url.split(separator: "?", maxSplits: 1)[0]
        return base + "?connect_timeout=60"
    }

    /// The name of the database a URL made by `makeLocation` or `patient` points at.
    package static func databaseName(of url: String) -> String {
        let base = url.split(separator: "?", maxSplits: 1)[0]
        return String(base[base.index(after: base.lastIndex(of: "/") ?? base.startIndex)...])
    }

    package static let postgres = StoreBackend(
        name: "PostgreSQL",
        open: { url, observer in PostgresStore(url: url, options: .init(readers: 2, queueTimeout: 120), observer: observer) },
        makeLocation: {
            guard let admin = postgresURL else { throw StoreError.unavailable("LINKRUNWAY_TEST_POSTGRES_URL is not set") }
            let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
            try await offloaded { try PostgresAdministration.execute("CREATE DATABASE \(name)", on: admin) }
            let server = admin.split(separator: "?", maxSplits: 1)[0]
            let url = patient(databaseURL: server[..<(server.lastIndex(of: "/") ?? server.endIndex)] + "/" + name)
            return StorageLocation(url: url, cleanup: {
                Thread { try? PostgresAdministration.execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)", on: admin) }.start()
            })
        })

    /// SQLite always; PostgreSQL when a server was given (`make test` starts one).
    package static var all: [StoreBackend] { postgresURL == nil ? [.sqlite] : [.sqlite, .postgres] }

    /// Fresh storage and a store open on it with `migrations` applied: where a test writes rows as an older schema kept
    /// them, before migrating the rest. Keep the location as long as the store.
    package func opened(migratedBy migrations: [Migration]) async throws -> (location: StorageLocation, store: any Store) {
        let location = try await makeLocation()
        let store = try open(location.url, nil)
        _ = try await store.migrate(migrations)
        return (location, store)
    }
}

/// Storage for one test, removed when the last reference goes.
package final class StorageLocation: Sendable {
    package let url: String
    private let cleanup: @Sendable () -> Void
    package init(url: String, cleanup: @escaping @Sendable () -> Void) {
        self.url = url
        self.cleanup = cleanup
    }
    deinit { cleanup() }
}
