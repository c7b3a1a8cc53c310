#ifndef LINKRUNWAY_CPOSTGRES_SHIM_H
#define LINKRUNWAY_CPOSTGRES_SHIM_H
#include <libpq-fe.h>

/// PG_DIAG_SQLSTATE is a character macro; this keeps callers from spelling it.
static inline const char *lr_pq_sqlstate(const PGresult *result) {
    return PQresultErrorField(result, 'C');
}

#endif
