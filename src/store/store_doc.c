#include "store/store_doc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "result/result_doc.h"

/* where: "" at the top, "results[2]." in a suite's child; field: the key at fault. */
static int fail(char *err, size_t errlen, const char *where, const char *field,
		const char *what)
{
	snprintf(err, errlen, "%s%s: expected %s", where, field, what);
	return -EINVAL;
}

static int fail_metric(char *err, size_t errlen, const char *where, size_t i,
		       const char *field, const char *what)
{
	snprintf(err, errlen, "%smetrics[%zu]%s: expected %s", where, i, field, what);
	return -EINVAL;
}

/* The characters a command name has (tcp, rfc2544, http-load would do too). */
static bool is_test_name(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 31)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') ||
		      s[i] == '-' || s[i] == '_'))
			return false;
	return true;
}

static int check_metric(const json_t *m, const char *where, size_t i, char *err,
			size_t errlen)
{
	const json_t *name = json_object_get(m, "name"), *value = json_object_get(m, "value");
	const json_t *unit = json_object_get(m, "unit"), *better = json_object_get(m, "better");
	const char *b;

	if (!json_is_object(m))
		return fail_metric(err, errlen, where, i, "", "an object");
	if (!json_is_string(name) || !json_string_length(name) || json_string_length(name) > 127)
		return fail_metric(err, errlen, where, i, ".name", "a name of 1 to 127 characters");
	if (!json_is_number(value) && !json_is_null(value))
		return fail_metric(err, errlen, where, i, ".value", "a number or null");
	if (!json_is_string(unit))
		return fail_metric(err, errlen, where, i, ".unit", "a string");
	b = json_string_value(better);
	if (!b || (strcmp(b, "higher") && strcmp(b, "lower") && strcmp(b, "none")))
		return fail_metric(err, errlen, where, i, ".better",
				   "\"higher\", \"lower\" or \"none\"");
	return 0;
}

static int check_doc(const json_t *doc, const char *where, int depth, char *err,
		     size_t errlen);

static int check_parts(const json_t *doc, const char *where, int depth, char *err,
		       size_t errlen)
{
	const json_t *metrics = json_object_get(doc, "metrics");
	const json_t *results = json_object_get(doc, "results");
	const json_t *params = json_object_get(doc, "params"), *v;
	const json_t *label = json_object_get(params, "label");
	char at[256];
	size_t i;
	int rc;

	if (params && !json_is_object(params))
		return fail(err, errlen, where, "params", "an object");
	if (label && !json_is_null(label) &&
	    (!json_is_string(label) || json_string_length(label) > 63))
		return fail(err, errlen, where, "params.label", "a string of up to 63 characters");
	if (json_object_get(doc, "env") && !json_is_object(json_object_get(doc, "env")))
		return fail(err, errlen, where, "env", "an object");
	if (!json_is_array(metrics))
		return fail(err, errlen, where, "metrics", "an array");
	json_array_foreach(metrics, i, v) {
		rc = check_metric(v, where, i, err, errlen);
		if (rc)
			return rc;
	}
	if (!results || json_is_null(results))
		return 0;
	/*
	 * A suite's children are results, and a child may be a suite itself (run's latency and
	 * together steps have children of their own): as deep as result_doc.c reads a document.
	 */
	if (depth >= BP_RESULT_DOC_DEPTH)
		return fail(err, errlen, where, "results", "at most 4 levels of nesting");
	if (!json_is_array(results))
		return fail(err, errlen, where, "results", "an array");
	json_array_foreach(results, i, v) {
		snprintf(at, sizeof(at), "%sresults[%zu].", where, i);
		rc = check_doc(v, at, depth + 1, err, errlen);
		if (rc)
			return rc;
	}
	return 0;
}

static int check_doc(const json_t *doc, const char *where, int depth, char *err,
		     size_t errlen)
{
	const char *schema = json_string_value(json_object_get(doc, "schema"));
	const char *test = json_string_value(json_object_get(doc, "test"));
	const json_t *at_value;

	if (!json_is_object(doc))
		return fail(err, errlen, where, *where ? "" : "the document", "a JSON object");
	if (!schema || strcmp(schema, "boardperf/1"))
		return fail(err, errlen, where, "schema",
			    "\"boardperf/1\" (a boardperf result document)");
	if (!test || !is_test_name(test))
		return fail(err, errlen, where, "test", "a command name such as \"tcp\"");
	at_value = json_object_get(json_object_get(doc, "env"), "collected_at");
	if (at_value && !json_is_null(at_value) && bp_store_doc_time(doc) < 0)
		return fail(err, errlen, where, "env.collected_at",
			    "a UTC time such as \"2026-11-30T12:00:00Z\"");
	return check_parts(doc, where, depth, err, errlen);
}

int bp_store_doc_check(const json_t *doc, char *err, size_t errlen)
{
	return check_doc(doc, "", 0, err, errlen);
}

long long bp_store_doc_time(const json_t *doc)
{
	const char *at = json_string_value(json_object_get(json_object_get(doc, "env"),
							   "collected_at"));
	struct tm tm;
	const char *end;
	time_t t;

	if (!at)
		return -1;
	memset(&tm, 0, sizeof(tm));
	end = strptime(at, "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (!end || *end)
		return -1;
	t = timegm(&tm);
	return t < 0 ? -1 : (long long)t;
}

json_t *bp_store_doc_parse(const char *buf, size_t len, char *err, size_t errlen)
{
	json_error_t jerr;
	json_t *doc = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);

	if (!doc) {
		snprintf(err, errlen, "not JSON: line %d column %d: %s", jerr.line, jerr.column,
			 jerr.text);
		return NULL;
	}
	if (bp_store_doc_check(doc, err, errlen)) {
		json_decref(doc);
		return NULL;
	}
	return doc;
}

/* The whole file, NUL-terminated, in *buf (the caller frees). 0 or -errno. */
static int read_file(const char *path, char **buf, size_t *len, char *err, size_t errlen)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = 0;
	size_t got = 0;

	*buf = NULL;
	if (fd < 0 || fstat(fd, &st)) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode) || (unsigned long long)st.st_size > BP_STORE_DOC_MAX) {
		rc = -EINVAL;
		snprintf(err, errlen, "%s: expected a result document file of at most %u MiB",
			 path, BP_STORE_DOC_MAX >> 20);
		goto out;
	}
	*buf = malloc((size_t)st.st_size + 1);
	if (!*buf) {
		rc = -ENOMEM;
		snprintf(err, errlen, "%s: out of memory", path);
		goto out;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, *buf + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rc = n < 0 ? -errno : -EIO;
			snprintf(err, errlen, "%s: %s", path, n < 0 ? strerror(errno) :
				 "the file shrank while it was read");
			goto out;
		}
		got += (size_t)n;
	}
	(*buf)[got] = '\0';
	*len = got;
out:
	if (fd >= 0)
		close(fd);
	if (rc) {
		free(*buf);
		*buf = NULL;
	}
	return rc;
}

json_t *bp_store_doc_load(const char *path, char *err, size_t errlen)
{
	char why[384];
	char *buf;
	size_t len = 0;
	json_t *doc;

	if (read_file(path, &buf, &len, err, errlen))
		return NULL;
	doc = bp_store_doc_parse(buf, len, why, sizeof(why));
	if (!doc)
		snprintf(err, errlen, "%s: %s", path, why);
	free(buf);
	return doc;
}
