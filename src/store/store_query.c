/* Reading the database: history's list, a label's newest run, export's newest figures. */
#include "store/store.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_doc.h"
#include "store/store_internal.h"

static void copy_col(char *dst, size_t len, sqlite3_stmt *st, int col)
{
	const unsigned char *t = sqlite3_column_text(st, col);

	snprintf(dst, len, "%s", t ? (const char *)t : "");
}

int64_t bp_store_latest_by_label(struct bp_store *s, const char *label, const char *test)
{
	sqlite3_stmt *st;
	int64_t id;
	int rc = sqlite3_prepare_v2(s->db, "SELECT id FROM results WHERE parent IS NULL AND "
				    "label = ?1 AND (?2 IS NULL OR test = ?2) "
				    "ORDER BY time_unix DESC, id DESC LIMIT 1", -1, &st, NULL);

	if (rc != SQLITE_OK)
		return bp_store_errno(rc);
	sqlite3_bind_text(st, 1, label, -1, SQLITE_TRANSIENT);
	if (test)
		sqlite3_bind_text(st, 2, test, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(st);
	id = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : rc == SQLITE_DONE ? 0
	   : bp_store_errno(rc);
	sqlite3_finalize(st);
	return id;
}

#define ROW_COLUMNS "id, COALESCE(parent, 0), time_unix, test, label, board, version"

/* Steps st (its columns ROW_COLUMNS) through cb, then finalizes it. */
static int walk_rows(sqlite3_stmt *st, int (*cb)(const struct bp_store_row *row, void *arg),
		     void *arg)
{
	struct bp_store_row row;
	int cbrc = 0, rc;

	while (!cbrc && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		memset(&row, 0, sizeof(row));
		row.id = sqlite3_column_int64(st, 0);
		row.parent = sqlite3_column_int64(st, 1);
		row.time_unix = sqlite3_column_int64(st, 2);
		copy_col(row.test, sizeof(row.test), st, 3);
		copy_col(row.label, sizeof(row.label), st, 4);
		copy_col(row.board, sizeof(row.board), st, 5);
		copy_col(row.version, sizeof(row.version), st, 6);
		cbrc = cb(&row, arg);
	}
	sqlite3_finalize(st);
	if (cbrc)
		return cbrc;
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : bp_store_errno(rc);
}

int bp_store_list(struct bp_store *s, const struct bp_store_filter *f,
		  int (*cb)(const struct bp_store_row *row, void *arg), void *arg)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(s->db, "SELECT " ROW_COLUMNS " FROM results "
				    "WHERE (?1 IS NULL OR test = ?1) AND (?2 IS NULL OR label = ?2) "
				    "AND time_unix >= ?3 AND (?4 OR parent IS NULL) "
				    "ORDER BY time_unix DESC, id DESC LIMIT ?5", -1, &st, NULL);

	if (rc != SQLITE_OK)
		return bp_store_errno(rc);
	if (f && f->test)
		sqlite3_bind_text(st, 1, f->test, -1, SQLITE_TRANSIENT);
	if (f && f->label)
		sqlite3_bind_text(st, 2, f->label, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 3, f ? f->since_unix : 0);
	sqlite3_bind_int(st, 4, f && f->children);
	/* SQLite reads a negative LIMIT as none. */
	sqlite3_bind_int(st, 5, f && f->limit > 0 ? f->limit : -1);
	return walk_rows(st, cb, arg);
}

int bp_store_children(struct bp_store *s, int64_t id,
		      int (*cb)(const struct bp_store_row *row, void *arg), void *arg)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(s->db, "SELECT " ROW_COLUMNS " FROM results WHERE parent = ? "
				    "ORDER BY id", -1, &st, NULL);

	if (rc != SQLITE_OK)
		return bp_store_errno(rc);
	sqlite3_bind_int64(st, 1, id);
	return walk_rows(st, cb, arg);
}

int bp_store_metrics(struct bp_store *s, int64_t id,
		     int (*cb)(const struct bp_store_metric *m, void *arg), void *arg)
{
	sqlite3_stmt *st;
	struct bp_store_metric m;
	int cbrc = 0, rc = sqlite3_prepare_v2(s->db, "SELECT name, unit, better, value FROM "
					      "metrics WHERE result_id = ? ORDER BY rowid", -1,
					      &st, NULL);

	if (rc != SQLITE_OK)
		return bp_store_errno(rc);
	sqlite3_bind_int64(st, 1, id);
	while (!cbrc && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		m.name = (const char *)sqlite3_column_text(st, 0);
		m.unit = (const char *)sqlite3_column_text(st, 1);
		m.better = (const char *)sqlite3_column_text(st, 2);
		m.value = sqlite3_column_type(st, 3) == SQLITE_NULL ? NAN
			: sqlite3_column_double(st, 3);
		cbrc = cb(&m, arg);
	}
	sqlite3_finalize(st);
	if (cbrc)
		return cbrc;
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : bp_store_errno(rc);
}

/* doc as printed with --json (15 significant digits, result/render_json.c), compact: two
 * documents that print the same are the same result, whichever copy went through a file. */
static char *printed_text(const json_t *doc)
{
	return json_dumps(doc, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(15));
}

static bool same_printed(const char *stored, int n, const char *want)
{
	json_t *doc = json_loadb(stored, (size_t)n, 0, NULL);
	char *text = doc ? printed_text(doc) : NULL;
	bool same = text && !strcmp(text, want);

	free(text);
	json_decref(doc);
	return same;
}

int64_t bp_store_find_doc(struct bp_store *s, const json_t *doc)
{
	char *want = printed_text(doc);
	long long t = bp_store_doc_time(doc);
	sqlite3_stmt *st;
	int64_t id = 0;
	int rc;

	if (!want)
		return -ENOMEM;
	/* Candidates by the indexed columns; only they are parsed. */
	rc = sqlite3_prepare_v2(s->db, "SELECT id, doc FROM results WHERE parent IS NULL AND "
				"test = ? AND time_unix = ?", -1, &st, NULL);
	if (rc != SQLITE_OK) {
		free(want);
		return bp_store_errno(rc);
	}
	sqlite3_bind_text(st, 1, json_string_value(json_object_get(doc, "test")), -1,
			  SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, t);
	while (!id && (rc = sqlite3_step(st)) == SQLITE_ROW)
		if (same_printed(sqlite3_column_blob(st, 1), sqlite3_column_bytes(st, 1), want))
			id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	free(want);
	if (!id && rc != SQLITE_DONE && rc != SQLITE_ROW)
		return bp_store_errno(rc);
	return id;
}

/*
 * The newest figure of each series, by a window over every result (a suite's children
 * included: they hold the figures). A metric the test could not give (null) is no figure
 * and is skipped, so the series keeps its last real value.
 */
int bp_store_latest_metrics(struct bp_store *s, int64_t since_unix,
			    int (*cb)(const struct bp_store_latest *m, void *arg), void *arg)
{
	sqlite3_stmt *st;
	struct bp_store_latest m;
	int cbrc = 0, rc = sqlite3_prepare_v2(s->db,
		"SELECT board, label, test, name, unit, better, value, time_unix, id FROM ("
		" SELECT r.board, r.label, r.test, m.name, m.unit, m.better, m.value, r.time_unix,"
		"  r.id, ROW_NUMBER() OVER (PARTITION BY r.board, r.label, r.test, m.name"
		"   ORDER BY r.time_unix DESC, r.id DESC) AS n"
		" FROM metrics m JOIN results r ON r.id = m.result_id"
		" WHERE r.time_unix >= ?1 AND m.value IS NOT NULL)"
		" WHERE n = 1 ORDER BY board, label, test, name", -1, &st, NULL);

	if (rc != SQLITE_OK)
		return bp_store_errno(rc);
	sqlite3_bind_int64(st, 1, since_unix);
	while (!cbrc && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		m.board = (const char *)sqlite3_column_text(st, 0);
		m.label = (const char *)sqlite3_column_text(st, 1);
		m.test = (const char *)sqlite3_column_text(st, 2);
		m.metric = (const char *)sqlite3_column_text(st, 3);
		m.unit = (const char *)sqlite3_column_text(st, 4);
		m.better = (const char *)sqlite3_column_text(st, 5);
		m.value = sqlite3_column_double(st, 6);
		m.time_unix = sqlite3_column_int64(st, 7);
		m.id = sqlite3_column_int64(st, 8);
		cbrc = cb(&m, arg);
	}
	sqlite3_finalize(st);
	if (cbrc)
		return cbrc;
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : bp_store_errno(rc);
}

int bp_store_get_form(struct bp_store *s, int64_t id, const char *format, char **body,
		      size_t *len, char *fmt, size_t fmtlen)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(s->db, "SELECT body, format FROM printed WHERE result_id = ?1 "
				    "AND (?2 IS NULL AND as_printed OR format = ?2)", -1, &st,
				    NULL);

	*body = NULL;
	*len = 0;
	if (rc != SQLITE_OK)
		return bp_store_errno(rc);
	sqlite3_bind_int64(st, 1, id);
	if (format)
		sqlite3_bind_text(st, 2, format, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		int n = sqlite3_column_bytes(st, 0);

		*body = malloc((size_t)n + 1);
		if (*body) {
			if (n)
				memcpy(*body, sqlite3_column_blob(st, 0), (size_t)n);
			(*body)[n] = '\0';
			*len = (size_t)n;
			copy_col(fmt, fmtlen, st, 1);
		}
		rc = *body ? 0 : -ENOMEM;
	} else {
		rc = rc == SQLITE_DONE ? -ENOENT : bp_store_errno(rc);
	}
	sqlite3_finalize(st);
	return rc;
}
