/*
 * The results database against SQLite itself: what bp_store_save writes is read back with
 * plain SQL (the columns, the metric rows, the links of a suite), every database ends with
 * PRAGMA integrity_check "ok", and a database made at schema version 1 opens and migrates.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/store.h"
#include "store/store_internal.h"
#include "tests/unit/store/store_fixture.h"
#include "tests/unit/kinds.h"
#include "tests/unit/tap.h"

static char db_path[400];

static void path_in_fixture(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", fixture_dir, name);
}

static void test_default_path(void)
{
	char buf[64], big[5000];

	setenv("XDG_DATA_HOME", "/x/data", 1);
	setenv("HOME", "/home/u", 1);
	CHECK_INT(bp_store_default_path(buf, sizeof(buf)), 0);
	CHECK_STR(buf, "/x/data/boardperf/results.db");
	setenv("XDG_DATA_HOME", "relative", 1);  /* invalid by the spec: ignored */
	CHECK_INT(bp_store_default_path(buf, sizeof(buf)), 0);
	CHECK_STR(buf, "/home/u/.local/share/boardperf/results.db");
	unsetenv("XDG_DATA_HOME");
	CHECK_INT(bp_store_default_path(buf, 10), -ENAMETOOLONG);
	unsetenv("HOME");
	CHECK_INT(bp_store_default_path(buf, sizeof(buf)), -ENOENT);
	memset(big, 'a', sizeof(big) - 1);
	big[0] = '/';
	big[sizeof(big) - 1] = '\0';
	setenv("XDG_DATA_HOME", big, 1);
	CHECK_INT(bp_store_default_path(buf, sizeof(buf)), -ENAMETOOLONG);
	unsetenv("XDG_DATA_HOME");
}

/* The default path when given none: the folders are made, the file is a WAL database. */
static void test_open_default(void)
{
	char err[512] = "", want[400], mode[16];
	struct bp_store *s;

	setenv("XDG_DATA_HOME", fixture_dir, 1);
	s = bp_store_open(NULL, true, err, sizeof(err));
	CHECK(s != NULL);
	snprintf(want, sizeof(want), "%s/boardperf/results.db", fixture_dir);
	CHECK_STR(s ? bp_store_path(s) : "", want);
	CHECK(access(want, F_OK) == 0);
	CHECK_STR(fixture_query_text(want, "PRAGMA journal_mode", mode, sizeof(mode)), "wal");
	CHECK_INT(fixture_query_int(want, "SELECT MAX(version) FROM schema_version"),
		  bp_store_schema_latest);
	bp_store_close(s);
	CHECK(fixture_integrity_ok(want));
	unsetenv("XDG_DATA_HOME");
}

static int64_t save(struct bp_store *s, json_t *doc)
{
	char err[512] = "";
	int64_t id = 0;
	int rc = bp_store_save(s, doc, &id, err, sizeof(err));

	if (rc)
		printf("# save: %s\n", err);
	json_decref(doc);
	return rc ? rc : id;
}

static void test_save_and_get(struct bp_store *s)
{
	json_t *doc = fixture_doc("tcp", "opi", "Orange Pi Zero", "2026-11-30T12:00:00Z",
				  "receiver.bitrate", 94.1e6), *back;
	char err[512] = "", text[128];
	int64_t id = 0;

	CHECK_INT(bp_store_save(s, doc, &id, err, sizeof(err)), 0);
	CHECK_INT(id, 1);
	back = bp_store_get(s, id);
	CHECK(back && json_equal(back, doc));
	json_decref(back);
	json_decref(doc);
	CHECK(bp_store_get(s, 999) == NULL);
	CHECK_INT(fixture_query_int(db_path, "SELECT time_unix FROM results WHERE id = 1"),
		  1796040000);
	CHECK_STR(fixture_query_text(db_path, "SELECT test || '|' || label || '|' || board || "
				     "'|' || version || '|' || (parent IS NULL) FROM results "
				     "WHERE id = 1", text, sizeof(text)),
		  "tcp|opi|Orange Pi Zero|0.1.0|1");
	CHECK_STR(fixture_query_text(db_path, "SELECT name || '|' || value || '|' || unit || '|' "
				     "|| better FROM metrics WHERE result_id = 1", text,
				     sizeof(text)), "receiver.bitrate|94100000.0|bit/s|higher");
	/* A figure the test could not give is NULL, not 0. */
	CHECK(save(s, fixture_doc("udp", NULL, NULL, "2026-11-30T12:00:01Z", "lost", NAN)) == 2);
	CHECK_INT(fixture_query_int(db_path, "SELECT COUNT(*) FROM metrics WHERE result_id = 2 "
				    "AND value IS NULL"), 1);
	CHECK_STR(fixture_query_text(db_path, "SELECT label || board FROM results WHERE id = 2",
				     text, sizeof(text)), "");
}

static void test_save_refuses(struct bp_store *s)
{
	json_t *doc = json_pack("{s:s, s:s}", "schema", "boardperf/2", "test", "tcp");
	char err[512] = "";
	int64_t id = 0;

	CHECK_INT(bp_store_save(s, doc, &id, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "schema") != NULL);
	CHECK_INT(fixture_query_int(db_path, "SELECT COUNT(*) FROM results"), 2);
	json_decref(doc);
}

/* A suite: the suite row and one row per child, each child pointing at it. */
static void test_save_suite(struct bp_store *s)
{
	json_t *suite = fixture_doc("run", "rpi3", "Raspberry Pi 3", "2026-11-30T13:00:00Z",
				    "suite.tests", 2);
	json_t *kids = json_array();
	int64_t id;

	json_array_append_new(kids, fixture_doc("cpu", "rpi3", "Raspberry Pi 3",
						"2026-11-30T13:00:05Z", "sha256.8192", 1e8));
	json_array_append_new(kids, fixture_doc("mem", "rpi3", "Raspberry Pi 3", NULL,
						"copy", 2e9));
	json_object_set_new(suite, "results", kids);
	id = save(s, suite);
	CHECK_INT(id, 3);
	CHECK_INT(fixture_query_int(db_path, "SELECT COUNT(*) FROM results WHERE parent = 3"), 2);
	CHECK_INT(fixture_query_int(db_path, "SELECT COUNT(*) FROM metrics m JOIN results r ON "
				    "r.id = m.result_id WHERE r.parent = 3"), 2);
	/* A child without its own time has the suite's. */
	CHECK_INT(fixture_query_int(db_path, "SELECT time_unix FROM results WHERE test = 'mem'"),
		  1796043600);
	CHECK_INT(fixture_query_int(db_path, "SELECT time_unix FROM results WHERE test = 'cpu'"),
		  1796043605);
}

struct collected {
	int n;
	int64_t ids[16];
	int64_t parents[16];
	int stop_after;
};

static int collect(const struct bp_store_row *row, void *arg)
{
	struct collected *c = arg;

	if (c->n < 16) {
		c->ids[c->n] = row->id;
		c->parents[c->n] = row->parent;
	}
	c->n++;
	return c->stop_after && c->n >= c->stop_after ? 42 : 0;
}

static void test_list(struct bp_store *s)
{
	struct bp_store_filter f = { 0 };
	struct collected c = { 0 };

	/* Newest first; a suite's children only when asked. */
	CHECK_INT(bp_store_list(s, &f, collect, &c), 0);
	CHECK_INT(c.n, 3);
	CHECK_INT(c.ids[0], 3);
	CHECK_INT(c.ids[1], 2);
	CHECK_INT(c.ids[2], 1);
	memset(&c, 0, sizeof(c));
	f.children = true;
	CHECK_INT(bp_store_list(s, &f, collect, &c), 0);
	CHECK_INT(c.n, 5);
	CHECK_INT(c.ids[0], 4);      /* the cpu child, 5 s after its suite */
	CHECK_INT(c.parents[0], 3);
	memset(&c, 0, sizeof(c));
	f = (struct bp_store_filter){ .label = "opi" };
	CHECK_INT(bp_store_list(s, &f, collect, &c), 0);
	CHECK_INT(c.n, 1);
	CHECK_INT(c.ids[0], 1);
	memset(&c, 0, sizeof(c));
	f = (struct bp_store_filter){ .test = "udp" };
	CHECK_INT(bp_store_list(s, &f, collect, &c), 0);
	CHECK_INT(c.n, 1);
	CHECK_INT(c.ids[0], 2);
	memset(&c, 0, sizeof(c));
	f = (struct bp_store_filter){ .since_unix = 1796040001 };
	CHECK_INT(bp_store_list(s, &f, collect, &c), 0);
	CHECK_INT(c.n, 2);
	memset(&c, 0, sizeof(c));
	f = (struct bp_store_filter){ .limit = 2 };
	CHECK_INT(bp_store_list(s, &f, collect, &c), 0);
	CHECK_INT(c.n, 2);
	/* The callback's non-zero return stops the walk and comes back. */
	memset(&c, 0, sizeof(c));
	c.stop_after = 1;
	CHECK_INT(bp_store_list(s, NULL, collect, &c), 42);
	CHECK_INT(c.n, 1);
}

static void test_latest_by_label(struct bp_store *s)
{
	int64_t newer = save(s, fixture_doc("tcp", "opi", "Orange Pi Zero",
					    "2026-11-30T14:00:00Z", "receiver.bitrate", 93e6));
	/* Same second, saved later: the higher id is the newer. */
	int64_t same = save(s, fixture_doc("udp", "opi", "Orange Pi Zero",
					   "2026-11-30T14:00:00Z", "receiver.bitrate", 1e6));

	CHECK_INT(bp_store_latest_by_label(s, "opi", NULL), same);
	CHECK_INT(bp_store_latest_by_label(s, "opi", "tcp"), newer);
	CHECK_INT(bp_store_latest_by_label(s, "nobody", NULL), 0);
	/* Children are not runs of their own: the suite is. */
	CHECK_INT(bp_store_latest_by_label(s, "rpi3", NULL), 3);
	CHECK_INT(bp_store_latest_by_label(s, "rpi3", "cpu"), 0);
}

struct series {
	int n;
	char line[16][160];
};

static int collect_series(const struct bp_store_latest *m, void *arg)
{
	struct series *sr = arg;

	if (sr->n < 16)
		snprintf(sr->line[sr->n], sizeof(sr->line[0]), "%s|%s|%s|%s|%g|%s|%s|%lld",
			 m->board, m->label, m->test, m->metric, m->value, m->unit, m->better,
			 (long long)m->id);
	sr->n++;
	return 0;
}

static void test_latest_metrics(struct bp_store *s)
{
	struct series sr = { 0 };

	/* The newer opi tcp (93e6, id 6) wins over the first (94.1e6); udp's NULL figure
	 * (id 2, no label) is no figure. */
	CHECK_INT(bp_store_latest_metrics(s, 0, collect_series, &sr), 0);
	CHECK_INT(sr.n, 5);
	CHECK_STR(sr.line[0], "Orange Pi Zero|opi|tcp|receiver.bitrate|9.3e+07|bit/s|higher|6");
	CHECK_STR(sr.line[1], "Orange Pi Zero|opi|udp|receiver.bitrate|1e+06|bit/s|higher|7");
	CHECK_STR(sr.line[2], "Raspberry Pi 3|rpi3|cpu|sha256.8192|1e+08|bit/s|higher|4");
	CHECK_STR(sr.line[3], "Raspberry Pi 3|rpi3|mem|copy|2e+09|bit/s|higher|5");
	CHECK_STR(sr.line[4], "Raspberry Pi 3|rpi3|run|suite.tests|2|bit/s|higher|3");
	memset(&sr, 0, sizeof(sr));
	CHECK_INT(bp_store_latest_metrics(s, 1796047200, collect_series, &sr), 0);
	CHECK_INT(sr.n, 2);
}

/* The printed forms come back byte for byte (a NUL inside too), each by its own result. */
static void test_forms(struct bp_store *s)
{
	static const char text[] = "tcp: board\n 0.0-1.0 941 Mbit/s\n", csv[] = "a,b\n1,\0x\n";
	const struct bp_store_form top[] = {
		{ "text", text, sizeof(text) - 1, true }, { "csv", csv, sizeof(csv) - 1, false },
	};
	const struct bp_store_form kid[] = { { "csv", "k\n", 2, false } };
	const struct bp_store_forms forms[] = { { top, 2 }, { kid, 1 } };
	json_t *suite = fixture_doc("run", "suite-label", "Board S", "2026-11-30T15:00:00Z",
				    "suite.tests", 1), *kids = json_array();
	char err[512] = "", fmt[16], *body, q[128];
	size_t len;
	int64_t id = 0;

	json_array_append_new(kids, fixture_doc("tcp", NULL, NULL, NULL, "receiver.bitrate", 1));
	json_object_set_new(suite, "results", kids);
	CHECK_INT(bp_store_save_forms(s, suite, forms, 2, &id, err, sizeof(err)), 0);
	json_decref(suite);
	CHECK_INT(bp_store_get_form(s, id, NULL, &body, &len, fmt, sizeof(fmt)), 0);
	CHECK(body && len == sizeof(text) - 1 && !memcmp(body, text, len));
	CHECK_STR(fmt, "text");
	free(body);
	CHECK_INT(bp_store_get_form(s, id, "csv", &body, &len, fmt, sizeof(fmt)), 0);
	CHECK(body && len == sizeof(csv) - 1 && !memcmp(body, csv, len));
	free(body);
	CHECK_INT(bp_store_get_form(s, id, "json", &body, &len, fmt, sizeof(fmt)), -ENOENT);
	CHECK(body == NULL);
	CHECK_INT(bp_store_get_form(s, id + 1, "csv", &body, &len, fmt, sizeof(fmt)), 0);
	CHECK(body && len == 2 && !memcmp(body, "k\n", 2));
	free(body);
	/* Nothing printed as the child itself: no default form. */
	CHECK_INT(bp_store_get_form(s, id + 1, NULL, &body, &len, fmt, sizeof(fmt)), -ENOENT);
	/* The child says no label, board or time of its own: the suite's. */
	snprintf(q, sizeof(q), "SELECT label || '|' || board || '|' || time_unix FROM results "
		 "WHERE id = %lld", (long long)id + 1);
	CHECK_STR(fixture_query_text(db_path, q, err, sizeof(err)), "suite-label|Board S|1796050800");
	/* A result saved without forms has none. */
	CHECK_INT(bp_store_get_form(s, 1, NULL, &body, &len, fmt, sizeof(fmt)), -ENOENT);
}

static void test_parse_since(void)
{
	static const struct { const char *in; long long want; } ok_cases[] = {
		{ "2026-11-30", 1795996800 },  /* 00:00 UTC */
		{ "2026-11-30T12:00:00Z", 1796040000 },
		{ "90m", 1796040000 - 5400 }, { "36h", 1796040000 - 129600 },
		{ "7d", 1796040000 - 604800 }, { "2w", 1796040000 - 1209600 }, { "0s", 1796040000 },
	};
	static const char *const bad[] = { "", "yesterday", "7", "7y", "-3d", "2026-13-01",
					   "2026-11-30T12:00:00", "7dd", "99999999999999999999d" };
	char err[256];
	int64_t t;

	for (size_t i = 0; i < sizeof(ok_cases) / sizeof(ok_cases[0]); i++) {
		t = 0;
		CHECK_INT(bp_store_parse_since(ok_cases[i].in, 1796040000, &t, err, sizeof(err)), 0);
		CHECK_INT(t, ok_cases[i].want);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_INT(bp_store_parse_since(bad[i], 1796040000, &t, err, sizeof(err)), -EINVAL);
		CHECK(strstr(err, "expected a UTC date") != NULL);
	}
}

struct names {
	int n;
	char text[256];
};

static int take_metric(const struct bp_store_metric *m, void *arg)
{
	struct names *nm = arg;
	size_t len = strlen(nm->text);

	snprintf(nm->text + len, sizeof(nm->text) - len, "%s%s=%g", len ? "," : "", m->name,
		 m->value);
	nm->n++;
	return 0;
}

static int take_child(const struct bp_store_row *row, void *arg)
{
	struct names *nm = arg;
	size_t len = strlen(nm->text);

	snprintf(nm->text + len, sizeof(nm->text) - len, "%s%lld:%s", len ? "," : "",
		 (long long)row->id, row->test);
	nm->n++;
	return 0;
}

/* The metrics and children history reads; a document found again whichever way it was
 * printed (15 significant digits in a file, every digit in the database). */
static void test_metrics_children_find(struct bp_store *s)
{
	struct names nm = { 0 };
	json_t *doc, *printed;
	char *text;

	CHECK_INT(bp_store_metrics(s, 2, take_metric, &nm), 0);
	CHECK_STR(nm.text, "lost=nan");
	memset(&nm, 0, sizeof(nm));
	CHECK_INT(bp_store_children(s, 3, take_child, &nm), 0);
	CHECK_STR(nm.text, "4:cpu,5:mem");
	memset(&nm, 0, sizeof(nm));
	CHECK_INT(bp_store_children(s, 1, take_child, &nm), 0);
	CHECK_INT(nm.n, 0);
	doc = bp_store_get(s, 1);
	CHECK_INT(bp_store_find_doc(s, doc), 1);
	/* Through a file as --json writes it: 15 digits. */
	json_object_set_new(json_array_get(json_object_get(doc, "metrics"), 0), "value",
			    json_real(94100000.00000001));
	text = json_dumps(doc, JSON_REAL_PRECISION(15));
	printed = json_loads(text, 0, NULL);
	CHECK_INT(bp_store_find_doc(s, printed), 1);
	json_object_set_new(json_object_get(printed, "params"), "label", json_string("else"));
	CHECK_INT(bp_store_find_doc(s, printed), 0);
	free(text);
	json_decref(printed);
	json_decref(doc);
}

static void test_resolve(struct bp_store *s)
{
	char err[512] = "", file[400];
	json_t *doc;
	FILE *f;

	doc = bp_store_resolve(s, "1", err, sizeof(err));
	CHECK(doc && !strcmp(json_string_value(json_object_get(doc, "test")), "tcp"));
	json_decref(doc);
	doc = bp_store_resolve(s, "opi", err, sizeof(err));  /* its newest: udp, id 7 */
	CHECK(doc && !strcmp(json_string_value(json_object_get(doc, "test")), "udp"));
	json_decref(doc);
	CHECK(bp_store_resolve(s, "12345", err, sizeof(err)) == NULL);
	CHECK(strstr(err, "'12345'") && strstr(err, "no result with that id"));
	CHECK(bp_store_resolve(s, "nolabel", err, sizeof(err)) == NULL);
	CHECK(strstr(err, "'nolabel'") && !strchr(err, '\n'));
	CHECK(bp_store_resolve(NULL, "7", err, sizeof(err)) == NULL);
	/* A file: a valid document, then a broken one, then not a boardperf one. */
	path_in_fixture(file, sizeof(file), "other.json");
	doc = fixture_doc("rr", "x", "B", "2026-11-30T12:00:00Z", "rtt", 1e4);
	CHECK(json_dump_file(doc, file, JSON_INDENT(2)) == 0);
	json_decref(doc);
	doc = bp_store_resolve(NULL, file, err, sizeof(err));
	CHECK(doc && !strcmp(json_string_value(json_object_get(doc, "test")), "rr"));
	json_decref(doc);
	f = fopen(file, "w");
	fputs("{\"schema\": \"boardperf/1\",\n \"test\": tcp}\n", f);
	fclose(f);
	CHECK(bp_store_resolve(s, file, err, sizeof(err)) == NULL);
	CHECK(strstr(err, file) && strstr(err, "line 2") && !strchr(err, '\n'));
	f = fopen(file, "w");
	fputs("{\"schema\": \"iperf3\", \"test\": \"tcp\", \"metrics\": []}", f);
	fclose(f);
	CHECK(bp_store_resolve(s, file, err, sizeof(err)) == NULL);
	CHECK(strstr(err, "schema: expected \"boardperf/1\"") != NULL);
	/* A folder is no document. */
	CHECK(bp_store_resolve(s, fixture_dir, err, sizeof(err)) == NULL);
	CHECK(strstr(err, "expected a result document file") != NULL);
	unlink(file);
}

/* A database as a boardperf with schema 1 left it opens in this one, data kept, and ends
 * at the newest schema; one from a newer boardperf, or another program's, is refused. */
static void test_migration(void)
{
	char path[400], err[512] = "";
	struct bp_store *s;
	json_t *doc;

	path_in_fixture(path, sizeof(path), "v1.db");
	s = bp_store_open_at(path, true, 1, err, sizeof(err));
	CHECK(s != NULL);
	CHECK_INT(fixture_query_int(path, "SELECT MAX(version) FROM schema_version"), 1);
	bp_store_close(s);
	/* The rows as boardperf at schema 1 wrote them. */
	{
		sqlite3 *db;

		CHECK(sqlite3_open(path, &db) == SQLITE_OK);
		CHECK(sqlite3_exec(db, "INSERT INTO results VALUES (1, NULL, 1767225600, 'disk', "
				   "'old', 'B', '0.1.0', '{\"schema\":\"boardperf/1\",\"test\":"
				   "\"disk\",\"metrics\":[]}'); INSERT INTO metrics VALUES (1, "
				   "'read.iops', 5000, 'op/s', 'higher')", NULL, NULL, NULL)
		      == SQLITE_OK);
		sqlite3_close(db);
	}
	s = bp_store_open(path, false, err, sizeof(err));
	CHECK(s != NULL);
	CHECK_INT(fixture_query_int(path, "SELECT MAX(version) FROM schema_version"),
		  bp_store_schema_latest);
	CHECK_INT(fixture_query_int(path, "SELECT COUNT(*) FROM schema_version"),
		  bp_store_schema_latest);
	/* Schema 2's table is there, empty: the old result simply has no printed forms. */
	CHECK_INT(fixture_query_int(path, "SELECT COUNT(*) FROM printed"), 0);
	CHECK_INT(bp_store_schema_latest, 2);
	doc = s ? bp_store_get(s, 1) : NULL;
	CHECK(doc && !strcmp(json_string_value(json_object_get(doc, "test")), "disk"));
	json_decref(doc);
	CHECK(s && save(s, fixture_doc("disk", "new", "B", NULL, "read.iops", 6e3)) == 2);
	bp_store_close(s);
	CHECK(fixture_integrity_ok(path));

	/* From a newer boardperf: refused, not written over. */
	{
		sqlite3 *db;

		CHECK(sqlite3_open(path, &db) == SQLITE_OK);
		CHECK(sqlite3_exec(db, "INSERT INTO schema_version VALUES (99, 0)", NULL, NULL,
				   NULL) == SQLITE_OK);
		sqlite3_close(db);
	}
	CHECK(bp_store_open(path, true, err, sizeof(err)) == NULL);
	CHECK(strstr(err, path) && strstr(err, "schema version 99 is newer"));

	/* Another program's SQLite file. */
	path_in_fixture(path, sizeof(path), "other.db");
	{
		sqlite3 *db;

		CHECK(sqlite3_open(path, &db) == SQLITE_OK);
		CHECK(sqlite3_exec(db, "CREATE TABLE t (x)", NULL, NULL, NULL) == SQLITE_OK);
		sqlite3_close(db);
	}
	CHECK(bp_store_open(path, true, err, sizeof(err)) == NULL);
	CHECK(strstr(err, "not a boardperf results database") != NULL);
}

/* Files that cannot be a database: each a one-line reason naming the file. */
static void test_unopenable(void)
{
	char path[400], err[512] = "";
	FILE *f;

	path_in_fixture(path, sizeof(path), "text.db");
	f = fopen(path, "w");
	fputs("this is not an SQLite database, just some text long enough to have a header\n", f);
	fclose(f);
	CHECK(bp_store_open(path, true, err, sizeof(err)) == NULL);
	CHECK(strstr(err, path) && strstr(err, "not a database") && !strchr(err, '\n'));
	CHECK(bp_store_open(fixture_dir, true, err, sizeof(err)) == NULL);
	CHECK(strstr(err, fixture_dir) != NULL);
	path_in_fixture(path, sizeof(path), "missing.db");
	CHECK(bp_store_open(path, false, err, sizeof(err)) == NULL);
	CHECK(strstr(err, "nothing saved yet") != NULL);
	CHECK(access(path, F_OK) != 0);  /* create false: nothing made */
	path_in_fixture(path, sizeof(path), "text.db/sub/x.db");
	CHECK(bp_store_open(path, true, err, sizeof(err)) == NULL);
	CHECK(strstr(err, "making its folder") != NULL);
}

/*
 * A suite of suites (run --peer's latency and together steps have children): a row for every
 * result at every level, each pointing at its own parent, and the document read back whole.
 */
static void test_save_nested(struct bp_store *s)
{
	json_t *run = fixture_doc("run", "nested", "Board N", "2026-11-30T16:00:00Z", "suite.tests",
				  2), *steps = json_array(), *latency, *phases = json_array();
	json_t *back = NULL;
	char err[512] = "", q[160];
	int64_t id = 0;

	latency = fixture_doc("latency", NULL, NULL, "2026-11-30T16:00:10Z", "idle.p50", 5e4);
	json_array_append_new(phases, fixture_doc("rr", NULL, NULL, NULL, "latency.p50", 5e4));
	json_array_append_new(phases, fixture_doc("tcp", NULL, NULL, NULL, "receiver.bitrate", 9e8));
	json_object_set_new(latency, "results", phases);
	json_array_append_new(steps, fixture_doc("cpu", NULL, NULL, NULL, "sha256.8192", 1e8));
	json_array_append_new(steps, latency);
	json_object_set_new(run, "results", steps);
	CHECK_INT(bp_store_save(s, run, &id, err, sizeof(err)), 0);
	if (err[0])
		printf("#   %s\n", err);
	snprintf(q, sizeof(q), "SELECT COUNT(*) FROM results WHERE parent = %lld", (long long)id);
	CHECK_INT(fixture_query_int(db_path, q), 2);
	/* the latency step's two phases point at the step, with its label, board and time */
	snprintf(q, sizeof(q), "SELECT COUNT(*) FROM results WHERE parent = %lld AND label = "
		 "'nested' AND board = 'Board N' AND time_unix = 1796054410", (long long)id + 2);
	CHECK_INT(fixture_query_int(db_path, q), 2);
	snprintf(q, sizeof(q), "SELECT test FROM results WHERE id = %lld", (long long)id + 4);
	CHECK_STR(fixture_query_text(db_path, q, err, sizeof(err)), "tcp");
	CHECK_INT(bp_store_get_doc(s, id, &back), 0);
	CHECK(back && json_equal(back, run));
	json_decref(back);
	json_decref(run);
}

int main(void)
{
	install_all_kinds();
	char err[512] = "";
	struct bp_store *s;

	if (!fixture_mkdir()) {
		printf("Bail out! no temporary folder\n");
		return 1;
	}
	test_default_path();
	test_open_default();
	test_parse_since();
	path_in_fixture(db_path, sizeof(db_path), "deep/er/results.db");
	s = bp_store_open(db_path, true, err, sizeof(err));
	CHECK(s != NULL);
	if (!s) {
		printf("# %s\n", err);
		fixture_cleanup();
		return tap_done();
	}
	test_save_and_get(s);
	test_save_refuses(s);
	test_save_suite(s);
	test_list(s);
	test_latest_by_label(s);
	test_latest_metrics(s);
	test_resolve(s);
	test_metrics_children_find(s);
	test_forms(s);
	test_save_nested(s);
	bp_store_close(s);
	CHECK(fixture_integrity_ok(db_path));
	test_migration();
	test_unopenable();
	fixture_cleanup();
	return tap_done();
}
