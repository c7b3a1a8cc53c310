import Foundation
import RunwayServer
import RunwaySQLite
import RunwayStore

/// `backup` and `restore`: whole-database copies of a SQLite deployment (PostgreSQL has pg_dump and pg_restore).
enum BackupCommands {
    static let databaseOption = ServeCommands.settingOptions.first { $0.name == "--database-url" }!

    static let backup: Command = Command(["backup"], summary: "Copy the SQLite database to FILE while the server keeps serving.",
                                arguments: "FILE", options: [databaseOption],
                                details: "One consistent snapshot (SQLite's online backup), integrity-checked, as a single file. On PostgreSQL use pg_dump.") { arguments, context in
        let (path, file) = try sqlitePathAndFile(arguments, context, verb: "back up")
        do {
            let summary = try SQLiteBackup.backup(from: path, to: file, progress: Progress.pages("backing up", context))
            Progress.finish(context)
            context.output("Backed up \(path) to \(file): \(describe(summary))")
        } catch {
            throw CommandFailure("\(error)")
        }
    }

    static let restore: Command = Command(["restore"], summary: "Replace the SQLite database with the backup in FILE.",
                                 arguments: "FILE", options: [databaseOption, .flag("--replace", "Overwrite an existing database.")],
                                 details: "Stop every server using the database first. The backup is checked (integrity, and no migration newer than this binary) before anything is replaced.") { arguments, context in
        let (path, file) = try sqlitePathAndFile(arguments, context, verb: "restore")
        do {
            let summary = try SQLiteBackup.restore(from: file, to: path, replace: arguments.flag("--replace"),
                                                   knownMigrations: Set(Schema.migrations.map(\.id)),
                                                   progress: Progress.pages("restoring", context))
            Progress.finish(context)
            context.output("Restored \(file) to \(path): \(describe(summary))")
        } catch {
            throw CommandFailure("\(error)")
        }
    }

    private static func sqlitePathAndFile(_ arguments: ParsedArguments, _ context: CLIContext, verb: String) throws -> (String, String) {
        guard arguments.positionals.count == 1, let file = arguments.positionals.first else { throw UsageError("give one FILE") }
        let configuration = try ServeCommands.configuration(arguments, context)
        switch configuration.database {
        case .sqlite(let path):
            return (path, file)
        case .postgres:
            throw CommandFailure("linkrunway can \(verb) only SQLite databases; for PostgreSQL use pg_dump --format=custom and pg_restore (see docs/deployment.md)")
        }
    }

    private static func describe(_ summary: SQLiteBackup.Summary) -> String {
        let rows = summary.rowCounts.filter { $0.key != "schema_migrations" }.values.reduce(0, +)
        return "\(summary.rowCounts.count) tables, \(rows) rows, schema at \(summary.migrations.last ?? "none")"
    }
}
