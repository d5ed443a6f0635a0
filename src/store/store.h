/*
 * The results database: every result a command prints is saved (unless --no-save) to SQLite,
 * the whole document as JSON (docs/json.md, "JSON result contract") beside indexed columns and one
 * row per metric, so that history, compare, report and export read figures without parsing
 * JSON. WAL mode, a schema version migrated from the first on, a busy timeout so that two
 * boardperf processes saving at once both succeed. Saving never costs a printed result: the
 * caller prints first, and a locked, read-only or full database is said once on stderr.
 */
#ifndef BP_STORE_STORE_H
#define BP_STORE_STORE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bp_store;

/* $XDG_DATA_HOME/boardperf/results.db, else ~/.local/share/boardperf/results.db. 0, or
 * -ENAMETOOLONG / -ENOENT (no HOME) with nothing written. */
int bp_store_default_path(char *buf, size_t len);

/* Opens the database at path (NULL: the default), creating it and its folder when create,
 * migrating an older schema. NULL with a one-line reason naming the file in err. */
struct bp_store *bp_store_open(const char *path, bool create, char *err, size_t errlen);
void bp_store_close(struct bp_store *s);

/* The file s is (for messages). */
const char *bp_store_path(const struct bp_store *s);

/*
 * The one line for a read of s that failed with rc (-errno, from a bp_store_ call): the
 * path and SQLite's own reason; for a corrupt database, that it is and what to do. rc.
 */
int bp_store_read_failed(struct bp_store *s, int rc, char *err, size_t errlen);

/* Saves one result document as printed (a suite's "results" children saved too, each linked
 * to its suite); its id in *id. One transaction. 0, or -errno with err. */
int bp_store_save(struct bp_store *s, const json_t *doc, int64_t *id, char *err, size_t errlen);

/*
 * A form of a result as boardperf prints it: format "text", "json", "csv" or
 * "json-stream", len bytes of body. as_printed: the one the user saw (show prints it by
 * default); the others rendered from the same result.
 */
struct bp_store_form {
	const char *format;
	const char *body;
	size_t len;
	bool as_printed;
};
struct bp_store_forms {
	const struct bp_store_form *v;
	size_t n;
};

/*
 * bp_store_save with the printed forms: forms[0] those of the result, forms[1 + i] those of
 * its i-th child (a suite's); nforms may be fewer (0: none). One transaction.
 */
int bp_store_save_forms(struct bp_store *s, const json_t *doc, const struct bp_store_forms *forms,
			size_t nforms, int64_t *id, char *err, size_t errlen);

/*
 * The stored form of result id in format (NULL: the one it was printed in), in *body
 * (malloc'd, the caller frees; len bytes) and its format in fmt. 0, -ENOENT when there is
 * none (an imported document has none), or -errno.
 */
int bp_store_get_form(struct bp_store *s, int64_t id, const char *format, char **body,
		      size_t *len, char *fmt, size_t fmtlen);

/* The stored document of result id (a new reference), NULL when there is none or the read
 * failed. */
json_t *bp_store_get(struct bp_store *s, int64_t id);

/* As bp_store_get, telling the two apart: 0 and *doc, -ENOENT for no such result, or -errno
 * (-EILSEQ: the database is corrupt; bp_store_read_failed says so). */
int bp_store_get_doc(struct bp_store *s, int64_t id, json_t **doc);

/* The newest top-level result with this label (and this test when test is not NULL); 0 when
 * there is none, -errno on an error. */
int64_t bp_store_latest_by_label(struct bp_store *s, const char *label, const char *test);

/* A result as history lists it. */
struct bp_store_row {
	int64_t id;
	int64_t parent;         /* the suite it belongs to; 0 for a top-level result */
	int64_t time_unix;      /* env.collected_at */
	char test[32];
	char label[64];         /* params.label, "" without */
	char board[128];        /* env.inventory.board.model, "" unknown */
	char version[32];       /* env.boardperf.version */
};

struct bp_store_filter {
	const char *test;       /* NULL: any */
	const char *label;      /* NULL: any */
	int64_t since_unix;     /* 0: from the first */
	int limit;              /* 0: all */
	bool children;          /* also a suite's children */
};

/* Calls cb for each matching result, newest first; cb's non-zero return stops the walk and
 * is returned. 0, or -errno. */
int bp_store_list(struct bp_store *s, const struct bp_store_filter *f,
		  int (*cb)(const struct bp_store_row *row, void *arg), void *arg);

/* A metric as the metrics table holds it; the strings live until cb returns. */
struct bp_store_metric {
	const char *name, *unit, *better;
	double value;           /* NAN: the test could not give it (null) */
};

/* Calls cb for each metric of result id, in the document's order. 0, cb's non-zero return,
 * or -errno. */
int bp_store_metrics(struct bp_store *s, int64_t id,
		     int (*cb)(const struct bp_store_metric *m, void *arg), void *arg);

/* Calls cb for each child of suite id, in the order of the suite's document. */
int bp_store_children(struct bp_store *s, int64_t id,
		      int (*cb)(const struct bp_store_row *row, void *arg), void *arg);

/* The id of a top-level result whose document is doc (a file imported twice); 0 none. */
int64_t bp_store_find_doc(struct bp_store *s, const json_t *doc);

/*
 * A --since value: a UTC date "2026-11-30", a time "2026-11-30T12:00:00Z", or an age before
 * now: "90m", "36h", "7d". 0 with *unix_out, or -EINVAL with a one-line reason.
 */
int bp_store_parse_since(const char *text, int64_t now, int64_t *unix_out, char *err,
			 size_t errlen);

/* The newest value of each (board, label, test, metric) since since_unix (0: all), for
 * export --openmetrics. */
struct bp_store_latest {
	const char *board, *label, *test, *metric, *unit, *better;
	double value;
	int64_t time_unix;
	int64_t id;
};
int bp_store_latest_metrics(struct bp_store *s, int64_t since_unix,
			    int (*cb)(const struct bp_store_latest *m, void *arg), void *arg);

/*
 * What compare and report accept for a run: a result id ("12"), a JSON file another board
 * wrote ("opi.json": a path that exists), or a label (its newest run). The document, a new
 * reference, or NULL with a one-line reason naming spec. s may be NULL (files only).
 */
json_t *bp_store_resolve(struct bp_store *s, const char *spec, char *err, size_t errlen);

#endif
