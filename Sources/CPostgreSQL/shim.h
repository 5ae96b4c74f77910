// The one header through which Swift sees libpq (Debian's libpq-dev), the PostgreSQL
// client library the sync service speaks to its server with.
#ifndef HEARTH_CPOSTGRESQL_SHIM_H
#define HEARTH_CPOSTGRESQL_SHIM_H
#include <libpq-fe.h>
#endif
