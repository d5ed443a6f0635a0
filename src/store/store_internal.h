/* What the files of src/store share: the handle and the schema's steps. Not for callers. */
#ifndef BP_STORE_STORE_INTERNAL_H
#define BP_STORE_STORE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include <sqlite3.h>

struct bp_store {
	sqlite3 *db;
	char path[4096];
};

/* The newest schema this build writes (store_schema.c). */
extern const int bp_store_schema_latest;

/*
 * Brings the database to schema version `target` (bp_store_schema_latest in use; older ones
 * only so that the tests can make a database as an older boardperf left it), one
 * transaction per step. 0, or -errno with a reason in err: a newer schema than target is
 * refused rather than written over.
 */
int bp_store_migrate(sqlite3 *db, int target, char *err, size_t errlen);

/* The schema version the database is at (0: a new file), or -errno. */
int bp_store_schema_version(sqlite3 *db);

/* bp_store_open at schema `version` (the tests make a database as an older boardperf did). */
struct bp_store *bp_store_open_at(const char *path, bool create, int version, char *err,
				  size_t errlen);

/* SQLite's message for the last error on db, with the system's reason when there was one
 * ("disk I/O error (No space left on device)"), in buf. */
const char *bp_store_errmsg(sqlite3 *db, char *buf, size_t len);

/* -errno for an SQLite result code: -EBUSY locked, -EROFS read-only, -ENOSPC full, ... */
int bp_store_errno(int sqlite_rc);

#endif
