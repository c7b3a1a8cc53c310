#ifndef LINKRUNWAY_CSQLITE_SHIM_H
#define LINKRUNWAY_CSQLITE_SHIM_H
#include <sqlite3.h>

/// SQLITE_STATIC is a macro Swift cannot import: the bound bytes stay valid until the bindings are cleared, so SQLite
/// does not copy them.
static inline sqlite3_destructor_type lr_sqlite_static(void) { return SQLITE_STATIC; }

#endif
