import Foundation
import RunwayServer
import RunwayStore
import LinkRunwayAPI

/// `serve` and `migrate`: the commands that work on the database directly.
enum ServeCommands {
    static var settingOptions: [OptionSpec] {
        ServerConfiguration.settings.map { .value($0.flag, "value", "\($0.summary) [$\($0.environment), default \($0.defaultValue)]") }
    }

    static let serve: Command = Command(["serve"], summary: "Run the server until SIGTERM or SIGINT.", options: settingOptions,
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
            let created = "LinkRunway created the workspace \"\(bootstrap.workspace.name)\" (\(bootstrap.workspace.id)) and an admin key."
            let use = "Use it as LINKRUNWAY_KEY for the CLI, or as \"Authorization: Bearer <key>\" with the API."
            if let path = configuration.adminKeyFile, writeAdminKey(bootstrap.adminKey, to: path, context) {
                context.output("\n\(created)\nThe key is in \(path) (readable by this user only); nothing else holds it.\n\(use)\n")
            } else {
                context.output("""

                    \(created)
                    The key is shown only this once; keep it somewhere safe:

                        \(bootstrap.adminKey)

                    \(use)

                    """)
            }
        }
        context.output(startMessage(host: configuration.http.host, port: Int(runtime.port), linkDomain: configuration.firstLinkDomain))
        await termination.wait()
        await runtime.stop()
    }

    /// Where the server listens, its console, and how a link of the first link domain is opened.
    static func startMessage(host: String, port: Int, linkDomain: String) -> String {
        let origin = host.contains(":") ? "http://[\(host)]:\(port)" : "http://\(host):\(port)"
        let listenedHost = host == "0.0.0.0" || host == "::" ? "127.0.0.1" : host
        let console = host.contains(":") && host != "::" ? "\(origin)/console" : "http://\(listenedHost):\(port)/console"
        let link = linkDomain == "localhost" ? "http://localhost:\(port)/summer" : "https://\(linkDomain)/summer"
        return """
            LinkRunway \(LinkRunwayVersion.current) listening on \(origin)
              console:  \(console)
              a link:   \(link)  (after: linkrunway link create --path summer --web https://example.com)
            """
    }

    /// Writes the first admin key to its file; false (with the reason on stderr) when it cannot, so it is printed
    /// rather than lost.
    static func writeAdminKey(_ key: String, to path: String, _ context: CLIContext) -> Bool {
        do {
            try SecretFile.write(key + "\n", to: path)
            return true
        } catch {
            context.errorOutput("cannot write the admin key to \(path) (\(error)); printing it instead")
            return false
        }
    }

    static let migrate: Command = Command(["migrate"], summary: "Bring the database to the current schema.",
                                 options: [settingOptions.first { $0.name == "--database-url" }!,
                                           settingOptions.first { $0.name == "--database-wait" }!,
                                           .flag("--create", "Create the SQLite database if it does not exist yet.")],
                                 details: """
                                     A SQLite path that does not exist is refused unless --create is given, so a typo in the
                                     path does not leave an empty database behind. Afterwards it names any stored rows whose
                                     amounts are beyond what the API now accepts (kept from before amounts were bounded):
                                     reports that add them answer 422 total_out_of_range until they are corrected. Then
                                     what this version does differently with this database's data: webhooks and postback
                                     forwards whose URL the outbound policy refuses, and apps whose App Store id's
                                     postbacks go to another app or wait for a proof (the server says the same at start).
                                     """) { arguments, context in
        let configuration = try configuration(arguments, context)
        if case .sqlite(let path) = configuration.database, path != ":memory:", !arguments.flag("--create"),
           !FileManager.default.fileExists(atPath: path) {
            throw UsageError("there is no database at \(path); give --create to make one there")
        }
        let store: any Store
        do {
            store = try StoreFactory.open(configuration.database)
        } catch {
            throw CommandFailure("cannot open the database: \(error)")
        }
        do {
            try await StoreFactory.awaitAnswer(store, seconds: configuration.databaseWaitSeconds) { error in
                context.errorOutput("waiting up to \(Int(configuration.databaseWaitSeconds)) s for the database: \(error)")
            }
            let applied = try await store.migrate(Schema.migrations)
            let notes = try await Schema.notes(afterApplying: applied, store)
            let outOfRange = try await StoredTotals.findings(store)
            let changes = try await UpgradeFindings.sentences(store, outbound: configuration.outbound)
            await store.close()
            context.output(applied.isEmpty ? "The database is up to date." : "Applied: \(applied.joined(separator: ", "))")
            notes.forEach(context.output)
            outOfRange.map(\.sentence).forEach(context.output)
            changes.forEach(context.output)
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
