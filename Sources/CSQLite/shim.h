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

static inline void hearth_sqlite3_result_text_transient(sqlite3_context *context,
                                                       const char *text, int length) {
  sqlite3_result_text(context, text, length, SQLITE_TRANSIENT);
}

static inline void hearth_sqlite3_result_blob_transient(sqlite3_context *context,
                                                       const void *bytes, int length) {
  sqlite3_result_blob(context, bytes, length, SQLITE_TRANSIENT);
}

// sqlite3_db_config and sqlite3_file_control are variadic; Swift cannot call them directly.
static inline int hearth_sqlite3_persist_wal(sqlite3 *db, int enabled) {
  int flag = enabled;
  return sqlite3_file_control(db, "main", SQLITE_FCNTL_PERSIST_WAL, &flag);
}

static inline int hearth_sqlite3_enable_defensive(sqlite3 *db) {
  return sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)0);
}

static inline int hearth_sqlite3_no_checkpoint_on_close(sqlite3 *db) {
  return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)0);
}

// uuid(): a random (version 4) UUID as lowercase text, the form HearthSQLite stores UUIDs
// in, so that `DEFAULT (uuid())` in a schema works on every Hearth connection.
static inline void hearth_sqlite3_uuid(sqlite3_context *context, int argc, sqlite3_value **argv) {
  (void)argc;
  (void)argv;
  unsigned char bytes[16];
  sqlite3_randomness(16, bytes);
  bytes[6] = (bytes[6] & 0x0F) | 0x40;
  bytes[8] = (bytes[8] & 0x3F) | 0x80;
  static const char digits[] = "0123456789abcdef";
  char text[36];
  int position = 0;
  for (int index = 0; index < 16; index++) {
    if (index == 4 || index == 6 || index == 8 || index == 10) text[position++] = '-';
    text[position++] = digits[bytes[index] >> 4];
    text[position++] = digits[bytes[index] & 0x0F];
  }
  sqlite3_result_text(context, text, 36, SQLITE_TRANSIENT);
}

static inline int hearth_sqlite3_register_uuid(sqlite3 *db) {
  return sqlite3_create_function_v2(db, "uuid", 0, SQLITE_UTF8 | SQLITE_INNOCUOUS, 0,
                                    hearth_sqlite3_uuid, 0, 0, 0);
}

#endif
