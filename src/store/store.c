/*
 * Opening the database and writing results to it (store.h). Every save is one IMMEDIATE
 * transaction: the result row, its metrics, and a suite's children with theirs, so a kill
 * at any point leaves either the whole result or none of it, never a suite without its
 * children.
 */
#include "store/store.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "store/store_doc.h"
#include "store/store_internal.h"

/* Another boardperf saving at the same moment holds the lock for milliseconds, hundreds of
 * them on a slow SD card or a loaded machine, and SQLite's busy handler is no queue: of ten
 * processes saving at once, one waited out 5 s on CI's busy machine (ASan, 2026-12-04) and
 * lost its result. 15 s covers that three times over; the result is printed before the
 * save, so a lock held for longer delays only the exit and the "not saved" line. */
#define BUSY_TIMEOUT_MS 15000

int bp_store_default_path(char *buf, size_t len)
{
	const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
	int n;

	/* The XDG spec: a relative XDG_DATA_HOME is invalid and ignored. */
	if (xdg && xdg[0] == '/')
		n = snprintf(buf, len, "%s/boardperf/results.db", xdg);
	else if (home && home[0])
		n = snprintf(buf, len, "%s/.local/share/boardperf/results.db", home);
	else
		return -ENOENT;
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* mkdir -p of path's folder (0700: the results say what this machine is). */
static int make_parent_dirs(const char *path)
{
	char dir[PATH_MAX];
	size_t n = strlen(path);

	if (n >= sizeof(dir))
		return -ENAMETOOLONG;
	memcpy(dir, path, n + 1);
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0700) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return 0;
}

/* The one line for a corrupt database: its path, SQLite's reason, and what to do. */
static void say_corrupt(const char *path, const char *why, char *err, size_t errlen)
{
	snprintf(err, errlen, "results database %s is corrupt (%s): move it aside (the next "
		 "save starts a new one) and recover what it holds with `sqlite3 %s .recover`",
		 path, why, path);
}

/* Is the folder path would be made in on a read-only file system? */
static bool folder_read_only(const char *path)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
	return access(dir, W_OK) && errno == EROFS;
}

int bp_store_read_failed(struct bp_store *s, int rc, char *err, size_t errlen)
{
	int code = sqlite3_errcode(s->db) & 0xff;

	if (rc == -EILSEQ || code == SQLITE_CORRUPT || code == SQLITE_NOTADB)
		say_corrupt(s->path, code == SQLITE_CORRUPT || code == SQLITE_NOTADB ?
			    sqlite3_errmsg(s->db) : "database disk image is malformed", err, errlen);
	else if (code != SQLITE_OK && code != SQLITE_ROW && code != SQLITE_DONE)
		snprintf(err, errlen, "results database %s: %s", s->path, sqlite3_errmsg(s->db));
	else
		snprintf(err, errlen, "results database %s: %s", s->path, strerror(-rc));
	return rc;
}

static int set_up(struct bp_store *s, int version, char *err, size_t errlen)
{
	/* WAL: readers (history, a second save) never block a writer. synchronous=NORMAL in
	 * WAL keeps every committed save through a crash or kill -9 of boardperf (only a power
	 * cut can lose the last ones), and costs no fsync per save on an SD card. */
	static const char *const pragmas[] = {
		"PRAGMA journal_mode = WAL", "PRAGMA synchronous = NORMAL",
		"PRAGMA foreign_keys = ON",
	};
	int rc;

	sqlite3_busy_timeout(s->db, BUSY_TIMEOUT_MS);
	for (size_t i = 0; i < sizeof(pragmas) / sizeof(pragmas[0]); i++) {
		rc = sqlite3_exec(s->db, pragmas[i], NULL, NULL, NULL);
		/* A read-only database keeps the journal mode it has; it can still be read. */
		if (rc != SQLITE_OK && !(i == 0 && (rc & 0xff) == SQLITE_READONLY)) {
			bp_store_errmsg(s->db, err, errlen);
			return bp_store_errno(rc);
		}
	}
	return bp_store_migrate(s->db, version, err, errlen);
}

struct bp_store *bp_store_open_at(const char *path, bool create, int version, char *err,
				  size_t errlen)
{
	struct bp_store *s = calloc(1, sizeof(*s));
	char why[320] = "";
	int acc, rc, flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX;

	if (!s) {
		snprintf(err, errlen, "results database: out of memory");
		return NULL;
	}
	rc = path ? (strlen(path) < sizeof(s->path) ? 0 : -ENAMETOOLONG)
		  : bp_store_default_path(s->path, sizeof(s->path));
	if (rc) {
		snprintf(err, errlen, "results database: %s", rc == -ENOENT ?
			 "neither XDG_DATA_HOME nor HOME is set (give --db FILE)" : strerror(-rc));
		free(s);
		return NULL;
	}
	if (path)
		snprintf(s->path, sizeof(s->path), "%s", path);
	if (create) {
		flags |= SQLITE_OPEN_CREATE;
		rc = make_parent_dirs(s->path);
		if (rc) {
			snprintf(err, errlen, "results database %s: making its folder: %s", s->path,
				 strerror(-rc));
			free(s);
			return NULL;
		}
	} else if (access(s->path, F_OK)) {
		snprintf(err, errlen, "results database %s: %s (nothing saved yet?)", s->path,
			 strerror(errno));
		free(s);
		return NULL;
	}
	rc = sqlite3_open_v2(s->path, &s->db, flags, NULL);
	if (rc != SQLITE_OK) {
		bp_store_errmsg(s->db, why, sizeof(why));
		goto fail;
	}
	if (set_up(s, version, why, sizeof(why)))
		goto fail;
	return s;
fail:
	/* SQLite says "unable to open" with its -shm file's errno; the cause is the mount. */
	acc = access(s->path, W_OK) ? errno : 0;
	if (acc == EROFS)
		snprintf(why, sizeof(why), "on a read-only file system");
	else if (acc == ENOENT && create && folder_read_only(s->path))
		/* a file still to be made: SQLite's errno is the missing file's, not the cause */
		snprintf(why, sizeof(why), "cannot create it: its folder is on a read-only file "
			 "system");
	if ((sqlite3_errcode(s->db) & 0xff) == SQLITE_CORRUPT)
		say_corrupt(s->path, sqlite3_errmsg(s->db), err, errlen);
	else
		snprintf(err, errlen, "results database %s: %s", s->path, why);
	bp_store_close(s);
	return NULL;
}

struct bp_store *bp_store_open(const char *path, bool create, char *err, size_t errlen)
{
	return bp_store_open_at(path, create, bp_store_schema_latest, err, errlen);
}

void bp_store_close(struct bp_store *s)
{
	if (!s)
		return;
	sqlite3_close(s->db);
	free(s);
}

const char *bp_store_path(const struct bp_store *s)
{
	return s->path;
}

/* A string member of nested objects ("env", "inventory", "board", "model"), "" without. */
static const char *str_at(const json_t *o, const char *const *keys, size_t n)
{
	for (size_t i = 0; i < n && o; i++)
		o = json_object_get(o, keys[i]);
	return json_is_string(o) ? json_string_value(o) : "";
}

static const char *doc_label(const json_t *doc)
{
	static const char *const k[] = { "params", "label" };

	return str_at(doc, k, 2);
}

static const char *doc_board(const json_t *doc)
{
	static const char *const k[] = { "env", "inventory", "board", "model" };

	return str_at(doc, k, 4);
}

static const char *doc_version(const json_t *doc)
{
	static const char *const k[] = { "env", "boardperf", "version" };

	return str_at(doc, k, 3);
}

static int fail_sql(struct bp_store *s, int rc, const char *what, char *err, size_t errlen)
{
	char msg[256];

	snprintf(err, errlen, "results database %s: %s: %s", s->path, what,
		 bp_store_errmsg(s->db, msg, sizeof(msg)));
	return bp_store_errno(rc);
}

static int insert_metrics(struct bp_store *s, sqlite3_stmt *st, int64_t id, const json_t *doc,
			  char *err, size_t errlen)
{
	const json_t *m;
	size_t i;
	int rc;

	json_array_foreach(json_object_get(doc, "metrics"), i, m) {
		const json_t *v = json_object_get(m, "value");

		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_text(st, 2, json_string_value(json_object_get(m, "name")), -1,
				  SQLITE_TRANSIENT);
		if (json_is_number(v))
			sqlite3_bind_double(st, 3, json_number_value(v));
		else
			sqlite3_bind_null(st, 3);
		sqlite3_bind_text(st, 4, json_string_value(json_object_get(m, "unit")), -1,
				  SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 5, json_string_value(json_object_get(m, "better")), -1,
				  SQLITE_TRANSIENT);
		rc = sqlite3_step(st);
		if (rc != SQLITE_DONE)
			return fail_sql(s, rc, "saving a metric", err, errlen);
	}
	return 0;
}

struct save_stmts {
	sqlite3_stmt *result, *metric, *form;
};

static int insert_forms(struct bp_store *s, sqlite3_stmt *st, int64_t id,
			const struct bp_store_forms *forms, char *err, size_t errlen)
{
	int rc;

	for (size_t i = 0; forms && i < forms->n; i++) {
		const struct bp_store_form *f = &forms->v[i];

		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_text(st, 2, f->format, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int(st, 3, f->as_printed);
		sqlite3_bind_blob64(st, 4, f->body ? f->body : "", f->len, SQLITE_TRANSIENT);
		rc = sqlite3_step(st);
		if (rc != SQLITE_DONE)
			return fail_sql(s, rc, "saving the printed result", err, errlen);
	}
	return 0;
}

/* The suite a child belongs to: what the child does not say itself is the suite's. */
struct parent_facts {
	int64_t id;
	long long time;
	const char *label, *board, *version;
};

static const char *or_parent(const char *own, const char *parents)
{
	return own[0] || !parents ? own : parents;
}

/* One result row, its metrics and its printed forms; its id in *id. */
static int insert_one(struct bp_store *s, struct save_stmts *q, const json_t *doc,
		      const struct parent_facts *p, const struct bp_store_forms *forms,
		      int64_t *id, char *err, size_t errlen)
{
	long long t = bp_store_doc_time(doc);
	char *text = json_dumps(doc, JSON_COMPACT);
	int rc;

	if (!text) {
		snprintf(err, errlen, "results database %s: out of memory", s->path);
		return -ENOMEM;
	}
	sqlite3_reset(q->result);
	if (p->id)
		sqlite3_bind_int64(q->result, 1, p->id);
	else
		sqlite3_bind_null(q->result, 1);
	sqlite3_bind_int64(q->result, 2, t >= 0 ? t : p->time);
	sqlite3_bind_text(q->result, 3, json_string_value(json_object_get(doc, "test")), -1,
			  SQLITE_TRANSIENT);
	sqlite3_bind_text(q->result, 4, or_parent(doc_label(doc), p->label), -1,
			  SQLITE_TRANSIENT);
	sqlite3_bind_text(q->result, 5, or_parent(doc_board(doc), p->board), -1,
			  SQLITE_TRANSIENT);
	sqlite3_bind_text(q->result, 6, or_parent(doc_version(doc), p->version), -1,
			  SQLITE_TRANSIENT);
	sqlite3_bind_text(q->result, 7, text, -1, free);
	rc = sqlite3_step(q->result);
	if (rc != SQLITE_DONE)
		return fail_sql(s, rc, "saving the result", err, errlen);
	*id = sqlite3_last_insert_rowid(s->db);
	rc = insert_metrics(s, q->metric, *id, doc, err, errlen);
	return rc ? rc : insert_forms(s, q->form, *id, forms, err, errlen);
}

static int prepare_save(struct bp_store *s, struct save_stmts *q, char *err, size_t errlen)
{
	int rc = sqlite3_prepare_v2(s->db, "INSERT INTO results (parent, time_unix, test, label, "
				    "board, version, doc) VALUES (?, ?, ?, ?, ?, ?, ?)", -1,
				    &q->result, NULL);

	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(s->db, "INSERT INTO metrics (result_id, name, value, "
					"unit, better) VALUES (?, ?, ?, ?, ?)", -1, &q->metric, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(s->db, "INSERT OR REPLACE INTO printed (result_id, format, "
					"as_printed, body) VALUES (?, ?, ?, ?)", -1, &q->form, NULL);
	return rc == SQLITE_OK ? 0 : fail_sql(s, rc, "preparing the save", err, errlen);
}

/*
 * A suite's children below the row parent, each with its own children (run's latency and
 * together steps are suites too), depth first; printed forms are the top's children's only.
 */
static int insert_children(struct bp_store *s, struct save_stmts *q, const json_t *doc,
			   const struct parent_facts *parent, const struct bp_store_forms *forms,
			   size_t nforms, char *err, size_t errlen)
{
	const json_t *child;
	struct parent_facts kids;
	int64_t child_id;
	size_t i;
	int rc = 0;

	json_array_foreach(json_object_get(doc, "results"), i, child) {
		long long t = bp_store_doc_time(child);

		rc = insert_one(s, q, child, parent, i < nforms ? &forms[i] : NULL, &child_id, err,
				errlen);
		if (rc)
			break;
		kids = (struct parent_facts){ .id = child_id, .time = t >= 0 ? t : parent->time,
					      .label = or_parent(doc_label(child), parent->label),
					      .board = or_parent(doc_board(child), parent->board),
					      .version = or_parent(doc_version(child),
								   parent->version) };
		rc = insert_children(s, q, child, &kids, NULL, 0, err, errlen);
		if (rc)
			break;
	}
	return rc;
}

/* The suite (or lone result) and its children, inside the caller's transaction. */
static int insert_tree(struct bp_store *s, const json_t *doc, const struct bp_store_forms *forms,
		       size_t nforms, int64_t *id, char *err, size_t errlen)
{
	struct save_stmts q = { NULL, NULL, NULL };
	struct parent_facts top = { 0 }, kids;
	int rc;

	top.time = bp_store_doc_time(doc);
	if (top.time < 0)
		top.time = (long long)time(NULL);
	rc = prepare_save(s, &q, err, errlen);
	if (!rc)
		rc = insert_one(s, &q, doc, &top, nforms ? &forms[0] : NULL, id, err, errlen);
	kids = (struct parent_facts){ .id = *id, .time = top.time, .label = doc_label(doc),
				      .board = doc_board(doc), .version = doc_version(doc) };
	if (!rc)
		rc = insert_children(s, &q, doc, &kids, nforms ? forms + 1 : NULL,
				     nforms ? nforms - 1 : 0, err, errlen);
	sqlite3_finalize(q.result);
	sqlite3_finalize(q.metric);
	sqlite3_finalize(q.form);
	return rc;
}

int bp_store_save_forms(struct bp_store *s, const json_t *doc, const struct bp_store_forms *forms,
			size_t nforms, int64_t *id, char *err, size_t errlen)
{
	char why[256];
	int rc;

	if (bp_store_doc_check(doc, why, sizeof(why))) {
		snprintf(err, errlen, "%s", why);
		return -EINVAL;
	}
	*id = 0;
	rc = sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return fail_sql(s, rc, "starting the save", err, errlen);
	rc = insert_tree(s, doc, forms, nforms, id, err, errlen);
	if (!rc) {
		int src = sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);

		if (src != SQLITE_OK)
			rc = fail_sql(s, src, "committing the save", err, errlen);
	}
	if (rc)
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

int bp_store_save(struct bp_store *s, const json_t *doc, int64_t *id, char *err, size_t errlen)
{
	return bp_store_save_forms(s, doc, NULL, 0, id, err, errlen);
}

int bp_store_get_doc(struct bp_store *s, int64_t id, json_t **doc)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(s->db, "SELECT doc FROM results WHERE id = ?", -1, &st, NULL);

	*doc = NULL;
	if (rc != SQLITE_OK)
		return bp_store_errno(rc);
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const void *text = sqlite3_column_blob(st, 0);
		int n = sqlite3_column_bytes(st, 0);

		/* a document that is not JSON is a page gone bad, as SQLite's own checks are */
		*doc = text ? json_loadb(text, (size_t)n, 0, NULL) : NULL;
		rc = *doc ? 0 : -EILSEQ;
	} else {
		rc = rc == SQLITE_DONE ? -ENOENT : bp_store_errno(rc);
	}
	sqlite3_finalize(st);
	return rc;
}

json_t *bp_store_get(struct bp_store *s, int64_t id)
{
	json_t *doc;

	return bp_store_get_doc(s, id, &doc) ? NULL : doc;
}
