// The one header through which Swift sees SQLite (Debian's libsqlite3-dev).
#ifndef HEARTH_CSQLITE_SHIM_H
#define HEARTH_CSQLITE_SHIM_H

// Debian builds libsqlite3 with the pre-update hook; the header only declares it on request.
#define SQLITE_ENABLE_PREUPDATE_HOOK 1
#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast macro Swift cannot import: bind helpers that copy the bytes.
static inline int hearth_sqlite3_bind_text_transient(sqlite3_stmt *statement, int index,
                                                     const char *text, int length) {
  return sqlite3_bind_text(statement, index, text, length, SQLITE_TRANSIENT);
}

static inline int hearth_sqlite3_bind_blob_transient(sqlite3_stmt *statement, int index,
                                                     const void *bytes, int length) {
  return sqlite3_bind_blob(statement, index, bytes, length, SQLITE_TRANSIENT);
}

// sqlite3_db_config and sqlite3_file_control are variadic; Swift cannot call them directly.
static inline int hearth_sqlite3_persist_wal(sqlite3 *db, int enabled) {
  int flag = enabled;
  return sqlite3_file_control(db, "main", SQLITE_FCNTL_PERSIST_WAL, &flag);
}

static inline int hearth_sqlite3_enable_defensive(sqlite3 *db) {
  return sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)0);
}

#endif
