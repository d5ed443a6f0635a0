/*
 * The schema and its migrations. A database records every step applied in schema_version
 * (one row per version, with when); opening runs the steps it lacks, in order, each in its
 * own transaction, so a database that a kill interrupted mid-migration is at the last whole
 * step and the next open carries on. A new version is one more entry in `steps`: never edit
 * a step that has shipped, a database somewhere is already at it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "store/store_internal.h"

struct step {
	int version;
	const char *why;
	const char *sql;
};

static const struct step steps[] = {
	{ 1, "results and their metrics",
	  /* One row per result document; a suite's children point at it by parent. The
	   * columns beside doc are what history, compare and export filter and sort on, so
	   * none of them needs to parse JSON. */
	  "CREATE TABLE results ("
	  " id INTEGER PRIMARY KEY,"
	  " parent INTEGER REFERENCES results(id) ON DELETE CASCADE,"
	  " time_unix INTEGER NOT NULL,"
	  " test TEXT NOT NULL,"
	  " label TEXT NOT NULL DEFAULT '',"
	  " board TEXT NOT NULL DEFAULT '',"
	  " version TEXT NOT NULL DEFAULT '',"
	  " doc TEXT NOT NULL);"
	  "CREATE INDEX results_time ON results(time_unix, id);"
	  "CREATE INDEX results_label ON results(label, time_unix, id);"
	  "CREATE INDEX results_test ON results(test, time_unix, id);"
	  "CREATE INDEX results_parent ON results(parent);"
	  /* value is NULL for a figure the test could not give (NaN in the model). */
	  "CREATE TABLE metrics ("
	  " result_id INTEGER NOT NULL REFERENCES results(id) ON DELETE CASCADE,"
	  " name TEXT NOT NULL,"
	  " value REAL,"
	  " unit TEXT NOT NULL DEFAULT '',"
	  " better TEXT NOT NULL DEFAULT 'none');"
	  "CREATE INDEX metrics_result ON metrics(result_id);"
	  "CREATE INDEX metrics_name ON metrics(name, result_id);" },
	{ 2, "printed forms for show",
	  /* What the command printed (as_printed 1: "text" with its live lines, "json",
	   * "csv" or "json-stream", byte for byte) and the other forms rendered from the
	   * same result, so that `show` prints any of them as the command would have. */
	  "CREATE TABLE printed ("
	  " result_id INTEGER NOT NULL REFERENCES results(id) ON DELETE CASCADE,"
	  " format TEXT NOT NULL,"
	  " as_printed INTEGER NOT NULL DEFAULT 0,"
	  " body BLOB NOT NULL,"
	  " PRIMARY KEY (result_id, format));" },
};

const int bp_store_schema_latest = (int)(sizeof(steps) / sizeof(steps[0]));

const char *bp_store_errmsg(sqlite3 *db, char *buf, size_t len)
{
	int sys = db ? sqlite3_system_errno(db) : 0;

	if (!db)
		snprintf(buf, len, "out of memory");
	else if (sys)
		snprintf(buf, len, "%s (%s)", sqlite3_errmsg(db), strerror(sys));
	else
		snprintf(buf, len, "%s", sqlite3_errmsg(db));
	return buf;
}

int bp_store_errno(int rc)
{
	switch (rc & 0xff) {
	case SQLITE_OK: return 0;
	case SQLITE_BUSY: case SQLITE_LOCKED: return -EBUSY;
	case SQLITE_READONLY: return -EROFS;
	case SQLITE_FULL: return -ENOSPC;
	case SQLITE_PERM: case SQLITE_AUTH: return -EACCES;
	case SQLITE_NOMEM: return -ENOMEM;
	case SQLITE_CANTOPEN: return -ENOENT;
	case SQLITE_NOTADB: case SQLITE_CORRUPT: case SQLITE_FORMAT: return -EILSEQ;
	case SQLITE_IOERR: return -EIO;
	default: return -EIO;
	}
}

static int table_exists(sqlite3 *db, const char *name)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' "
				    "AND name = ?", -1, &st, NULL);

	if (rc != SQLITE_OK)
		return bp_store_errno(rc);
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 1;
	return rc == SQLITE_DONE ? 0 : bp_store_errno(rc);
}

/* 1 when the file holds any table at all, 0 when it is new or empty, or -errno. */
static int any_table(sqlite3 *db)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'table'", -1,
				    &st, NULL);

	if (rc != SQLITE_OK)
		return bp_store_errno(rc);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 1;
	return rc == SQLITE_DONE ? 0 : bp_store_errno(rc);
}

int bp_store_schema_version(sqlite3 *db)
{
	sqlite3_stmt *st;
	int rc = table_exists(db, "schema_version"), v;

	if (rc <= 0)
		return rc;
	rc = sqlite3_prepare_v2(db, "SELECT COALESCE(MAX(version), 0) FROM schema_version", -1,
				&st, NULL);
	if (rc != SQLITE_OK)
		return bp_store_errno(rc);
	rc = sqlite3_step(st);
	v = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : bp_store_errno(rc);
	sqlite3_finalize(st);
	return v;
}

static int exec(sqlite3 *db, const char *sql, const char *what, char *err, size_t errlen)
{
	char msg[256];
	int rc = sqlite3_exec(db, sql, NULL, NULL, NULL);

	if (rc != SQLITE_OK) {
		snprintf(err, errlen, "%s: %s", what, bp_store_errmsg(db, msg, sizeof(msg)));
		return bp_store_errno(rc);
	}
	return 0;
}

/* One step, whole or not at all. BEGIN IMMEDIATE: two processes opening a new database at
 * once wait for each other (busy timeout) rather than both creating the tables. */
static int apply_step(sqlite3 *db, const struct step *s, char *err, size_t errlen)
{
	char what[96], sql[160], msg[256];
	int rc = exec(db, "BEGIN IMMEDIATE", "starting a migration", err, errlen), v;

	if (rc)
		return rc;
	/* Another process may have applied this step while we waited for the lock. */
	v = bp_store_schema_version(db);
	if (v < 0) {
		rc = v;
		snprintf(err, errlen, "reading the schema version: %s",
			 bp_store_errmsg(db, msg, sizeof(msg)));
		goto out;
	}
	if (v >= s->version)
		goto out;
	snprintf(what, sizeof(what), "migrating to schema %d (%s)", s->version, s->why);
	rc = exec(db, "CREATE TABLE IF NOT EXISTS schema_version ("
		  " version INTEGER PRIMARY KEY, applied_unix INTEGER NOT NULL)", what, err, errlen);
	if (!rc)
		rc = exec(db, s->sql, what, err, errlen);
	snprintf(sql, sizeof(sql), "INSERT INTO schema_version VALUES (%d, %lld)", s->version,
		 (long long)time(NULL));
	if (!rc)
		rc = exec(db, sql, what, err, errlen);
out:
	if (rc) {
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		return rc;
	}
	return exec(db, "COMMIT", "committing a migration", err, errlen);
}

int bp_store_migrate(sqlite3 *db, int target, char *err, size_t errlen)
{
	int v = bp_store_schema_version(db), rc;
	char msg[256];

	if (v < 0) {
		snprintf(err, errlen, "reading the schema version: %s",
			 bp_store_errmsg(db, msg, sizeof(msg)));
		return v;
	}
	if (v == 0 && any_table(db) > 0) {
		snprintf(err, errlen, "not a boardperf results database (it has tables but no "
			 "schema_version)");
		return -EPROTO;
	}
	if (v > target) {
		snprintf(err, errlen, "schema version %d is newer than this boardperf's %d: "
			 "written by a newer boardperf", v, target);
		return -EPROTO;
	}
	for (int i = 0; i < bp_store_schema_latest && steps[i].version <= target; i++) {
		if (steps[i].version <= v)
			continue;
		rc = apply_step(db, &steps[i], err, errlen);
		if (rc)
			return rc;
	}
	return 0;
}
