#include "export/om_store.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "export/om_figures.h"
#include "store/store.h"

static int add_one(const struct bp_store_latest *m, void *arg)
{
	return bp_om_figures_add(arg, m->board, m->label, m->test, m->metric, m->unit, m->value,
				 m->time_unix);
}

/* The results (board, label, test) the figures come from, for the summary line. */
static size_t count_results(const struct bp_om_figures *set)
{
	size_t n = 0;

	/* set is sorted by family first: count the distinct triples the slow way, few. */
	for (size_t i = 0; i < set->n; i++) {
		size_t j = 0;

		while (j < i && (strcmp(set->v[j].board, set->v[i].board) ||
				 strcmp(set->v[j].label, set->v[i].label) ||
				 strcmp(set->v[j].test, set->v[i].test)))
			j++;
		n += j == i;
	}
	return n;
}

int bp_om_store_write(const char *db, int64_t since_unix, FILE *out, enum bp_om_format f,
		      struct bp_om_store_counts *counts, char *err, size_t errlen)
{
	struct bp_om_figures set = { 0 };
	char path[4096];
	struct bp_store *s;
	int rc;

	/* An export only reads: a missing database is said, not created empty. */
	if (!db && bp_store_default_path(path, sizeof(path)) == 0)
		db = path;
	if (db && access(db, F_OK)) {
		rc = -errno;
		snprintf(err, errlen, "no results database at '%s' (%s): save a result first, or "
			 "name one with --db", db, strerror(errno));
		return rc;
	}
	s = bp_store_open(db, false, err, errlen);
	if (!s)
		return -EIO;
	rc = bp_store_latest_metrics(s, since_unix, add_one, &set);
	if (rc)
		bp_store_read_failed(s, rc, err, errlen);
	bp_store_close(s);
	if (!rc) {
		bp_om_figures_write(&set, out, f);
		if (counts)
			*counts = (struct bp_om_store_counts){
				.figures = set.n - set.clashes, .results = count_results(&set),
				.unnamed = set.unnamed, .not_finite = set.not_finite,
				.clashes = set.clashes,
			};
	}
	bp_om_figures_free(&set);
	return rc;
}
