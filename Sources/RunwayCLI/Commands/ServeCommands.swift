import Foundation
import RunwayServer
import RunwayStore
import LinkRunwayAPI

/// `serve` and `migrate`: the commands that work on the database directly.
enum ServeCommands {
    static var settingOptions: [OptionSpec] {
        ServerConfiguration.settings.map { .value($0.flag, "value", "\($0.summary) [$\($0.environment), default \($0.defaultValue)]") }
    }

    static let serve = Command(["serve"], summary: "Run the server until SIGTERM or SIGINT.", options: settingOptions,
                               details: "On an empty database it creates a workspace and prints an admin key, once.") { arguments, context in
        let configuration = try configuration(arguments, context)
        let termination = ServerRuntime.terminationSignal()
        let runtime: ServerRuntime
        do {
            runtime = try await ServerRuntime.start(configuration)
        } catch {
            throw CommandFailure("cannot start: \(error)")
        }
        if let bootstrap = runtime.bootstrap {
            context.output("""

                LinkRunway created the workspace "\(bootstrap.workspace.name)" (\(bootstrap.workspace.id)) and an admin key.
                The key is shown only this once; keep it somewhere safe:

                    \(bootstrap.adminKey)

                Use it as LINKRUNWAY_KEY for the CLI, or as "Authorization: Bearer <key>" with the API.

                """)
        }
        context.output("LinkRunway \(LinkRunwayVersion.current) listening on http://\(configuration.http.host):\(runtime.port)")
        await termination.wait()
        await runtime.stop()
    }

    static let migrate = Command(["migrate"], summary: "Bring the database to the current schema.",
                                 options: [settingOptions.first { $0.name == "--database-url" }!]) { arguments, context in
        let configuration = try configuration(arguments, context)
        let store: any Store
        do {
            store = try StoreFactory.open(configuration.database)
        } catch {
            throw CommandFailure("cannot open the database: \(error)")
        }
        do {
            let applied = try await store.migrate(Schema.migrations)
            await store.close()
            context.output(applied.isEmpty ? "The database is up to date." : "Applied: \(applied.joined(separator: ", "))")
        } catch {
            await store.close()
            throw CommandFailure("migration failed: \(error)")
        }
    }

    static func configuration(_ arguments: ParsedArguments, _ context: CLIContext) throws -> ServerConfiguration {
        do {
            return try ServerConfiguration.load(environment: context.environment, flags: arguments.values)
        } catch {
            throw UsageError("\(error)")
        }
    }
}
