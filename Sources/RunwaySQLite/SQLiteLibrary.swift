import CSQLite

/// Settings of the SQLite library itself, made once before the process's first connection opens: `sqlite3_config`
/// refuses them once SQLite has initialized, which opening does.
enum SQLiteLibrary {
    /// How large a statement journal grows in memory before SQLite moves it to a temporary file. The writer runs every
    /// job of a group commit in a savepoint, and a savepoint keeps a copy of each page it changes to undo it; at
    /// SQLite's default of 64 KiB a match's savepoint spilled, and from then on every page each job changed cost two
    /// writes to a temporary file until the commit. In memory, a job's copies are freed when its savepoint is released;
    /// only a job changing more than this spills.
    static let statementJournalInMemoryBytes: Int32 = 8 << 20

    /// Applies the settings; true when SQLite took them (false only if SQLite was initialized before, elsewhere).
    static let configured: Bool = lr_sqlite_config_statement_journal_spill(statementJournalInMemoryBytes) == SQLITE_OK
}
