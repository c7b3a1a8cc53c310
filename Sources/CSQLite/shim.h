#ifndef LINKRUNWAY_CSQLITE_SHIM_H
#define LINKRUNWAY_CSQLITE_SHIM_H
#include <sqlite3.h>

/// SQLITE_STATIC is a macro Swift cannot import: the bound bytes stay valid until the bindings are cleared, so SQLite
/// does not copy them.
static inline sqlite3_destructor_type lr_sqlite_static(void) { return SQLITE_STATIC; }

/// sqlite3_config is variadic, which Swift cannot call: sets how large a statement journal (the pages a savepoint
/// changed, kept to undo it) grows in memory before it spills to a temporary file. Only before SQLite initializes.
static inline int lr_sqlite_config_statement_journal_spill(int bytes) {
    return sqlite3_config(SQLITE_CONFIG_STMTJRNL_SPILL, bytes);
}

#endif
