/* What the store's unit tests share: a temporary folder, documents, integrity_check. */
#ifndef BP_TESTS_STORE_FIXTURE_H
#define BP_TESTS_STORE_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <sqlite3.h>

/* A folder of its own under TMPDIR (or /tmp), removed by fixture_cleanup. */
static char fixture_dir[256];

static inline const char *fixture_mkdir(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(fixture_dir, sizeof(fixture_dir), "%s/bp-store-XXXXXX", tmp ? tmp : "/tmp");
	return mkdtemp(fixture_dir);
}

static inline void fixture_cleanup(void)
{
	char cmd[300];

	if (!fixture_dir[0])
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fixture_dir);
	if (system(cmd) != 0)
		fprintf(stderr, "# could not remove %s\n", fixture_dir);
}

/* A result document as the JSON renderer writes one: test, label, board, time, metrics
 * (value NAN: null). */
static inline json_t *fixture_doc(const char *test, const char *label, const char *board,
				  const char *at, const char *metric, double value)
{
	json_t *params = label ? json_pack("{s:s, s:i}", "label", label, "time", 10)
			       : json_pack("{s:i}", "time", 10);
	json_t *v = value == value ? json_real(value) : json_null();

	return json_pack("{s:s, s:s, s:o, s:{s:{s:s, s:s}, s:s?, s:{s:{s:s?}}}, "
			 "s:[{s:s, s:o, s:s, s:s}], s:{}, s:[], s:[], s:n}",
			 "schema", "boardperf/1", "test", test, "params", params,
			 "env", "boardperf", "version", "0.1.0", "arch", "x86_64",
			 "collected_at", at, "inventory", "board", "model", board,
			 "metrics", "name", metric, "value", v, "unit", "bit/s",
			 "better", "higher",
			 "latency", "intervals", "warnings", "error");
}

/* PRAGMA integrity_check on its own connection: 1 when SQLite says "ok". */
static inline int fixture_integrity_ok(const char *path)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	int ok = 0;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL) == SQLITE_OK) {
		ok = sqlite3_step(st) == SQLITE_ROW &&
		     !strcmp((const char *)sqlite3_column_text(st, 0), "ok") &&
		     sqlite3_step(st) == SQLITE_DONE;
		sqlite3_finalize(st);
	}
	sqlite3_close(db);
	return ok;
}

/* The first column of the first row of sql, as an integer (-1: no row or an error). */
static inline long long fixture_query_int(const char *path, const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	long long v = -1;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			v = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	sqlite3_close(db);
	return v;
}

/* The first column of the first row of sql as text into buf ("" without). */
static inline const char *fixture_query_text(const char *path, const char *sql, char *buf,
					     size_t len)
{
	sqlite3 *db;
	sqlite3_stmt *st;

	buf[0] = '\0';
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
			snprintf(buf, len, "%s", (const char *)sqlite3_column_text(st, 0));
		sqlite3_finalize(st);
	}
	sqlite3_close(db);
	return buf;
}

#endif
