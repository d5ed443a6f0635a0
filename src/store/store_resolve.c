/*
 * What the user typed for a run (compare, report, show): an id, a file, or a label, tried
 * in that order. An id first because a bare number is what history prints; a file named
 * like a number is still reachable as ./12.
 */
#include "store/store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "store/store_doc.h"

/* A decimal id of 1 to 18 digits (no sign, no spaces), or 0. */
static int64_t parse_id(const char *spec)
{
	int64_t id = 0;
	size_t n = strlen(spec);

	if (n == 0 || n > 18)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (spec[i] < '0' || spec[i] > '9')
			return 0;
		id = id * 10 + (spec[i] - '0');
	}
	return id;
}

json_t *bp_store_resolve(struct bp_store *s, const char *spec, char *err, size_t errlen)
{
	int64_t id = parse_id(spec);
	struct stat st;
	json_t *doc = NULL;
	int rc;

	if (id) {
		rc = s ? bp_store_get_doc(s, id, &doc) : -ENOENT;
		if (rc && rc != -ENOENT)
			bp_store_read_failed(s, rc, err, errlen);
		else if (rc)
			snprintf(err, errlen, "'%s': %s", spec, s ? "no result with that id in the "
				 "results database (see 'boardperf history')" :
				 "an id, but there is no results database to look it up in");
		return doc;
	}
	if (stat(spec, &st) == 0)
		return bp_store_doc_load(spec, err, errlen);
	if (!s) {
		snprintf(err, errlen, "'%s': no such file (and no results database for an id or "
			 "a label)", spec);
		return NULL;
	}
	id = bp_store_latest_by_label(s, spec, NULL);
	rc = id > 0 ? bp_store_get_doc(s, id, &doc) : (int)id;
	if (id > 0 && !rc)
		return doc;
	if (rc && rc != -ENOENT)
		bp_store_read_failed(s, rc, err, errlen);
	else
		snprintf(err, errlen, "'%s': expected a result id, a result document file or a "
			 "label: no such file and no result labelled so", spec);
	return NULL;
}
