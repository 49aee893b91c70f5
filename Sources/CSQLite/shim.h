#ifndef LINKROUTER_CSQLITE_SHIM_H
#define LINKROUTER_CSQLITE_SHIM_H
#include <sqlite3.h>

/* SQLITE_TRANSIENT is a cast of -1 to a function pointer, which Swift cannot
   import: bind text through this so SQLite takes its own copy. */
static inline int lr_sqlite3_bind_text_copy(sqlite3_stmt *stmt, int index, const char *text, int length) {
    return sqlite3_bind_text(stmt, index, text, length, SQLITE_TRANSIENT);
}

/* Same for blobs. */
static inline int lr_sqlite3_bind_blob_copy(sqlite3_stmt *stmt, int index, const void *bytes, int length) {
    return sqlite3_bind_blob(stmt, index, bytes, length, SQLITE_TRANSIENT);
}
#endif
