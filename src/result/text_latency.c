#include "result/text_latency.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "result/render.h"
#include "result/text_brief.h"
#include "result/text_table.h"

/* Columns of the latency table: the narrow form keeps those marked. */
static const struct {
	const char *head;
	bool narrow;
} latency_cols[] = {
	{ "latency", true }, { "count", true }, { "min", true }, { "p50", true },
	{ "p90", false }, { "p99", true }, { "p99.9", false }, { "max", true },
};

static int latency_row(struct bp_table *t, const struct bp_latency *l, bool narrow)
{
	const double v[] = { l->min, l->p50, l->p90, l->p99, l->p999, l->max };
	char cell[8][BP_TEXT_VALUE_LEN];
	const char *row[8];
	size_t n = 0;

	snprintf(cell[1], sizeof(cell[1]), "%" PRIu64, l->count);
	for (size_t i = 0; i < 6; i++)
		bp_text_value(cell[2 + i], v[i], l->unit ? l->unit : "ns");
	for (size_t c = 0; c < 8; c++)
		if (!narrow || latency_cols[c].narrow)
			row[n++] = c ? cell[c] : l->what;
	return bp_table_add(t, row);
}

static int print_latency_columns(FILE *out, const struct bp_result *r, bool narrow)
{
	const char *head[8];
	size_t n = 0;
	struct bp_table t;
	int err;

	for (size_t c = 0; c < 8; c++)
		if (!narrow || latency_cols[c].narrow)
			head[n++] = latency_cols[c].head;
	err = bp_table_init(&t, n, 0);
	if (err)
		return err;
	for (size_t c = 1; c < n; c++)
		t.right[c] = true;
	err = bp_table_add(&t, head);
	for (size_t i = 0; !err && i < r->nlatency; i++)
		err = latency_row(&t, &r->latency[i], narrow);
	if (!err)
		err = bp_table_print(out, &t);
	bp_table_free(&t);
	return err;
}

static int print_latency_all(FILE *out, const struct bp_result *r, const void *arg)
{
	(void)arg;
	return print_latency_columns(out, r, false);
}

static int print_latency_narrow(FILE *out, const struct bp_result *r, const void *arg)
{
	(void)arg;
	return print_latency_columns(out, r, true);
}

/* Every percentile when it fits; else without p90 and p99.9; else with -v only. */
int bp_text_latency_print(FILE *out, const struct bp_result *r)
{
	int rc = bp_text_print_if_fits(out, r, print_latency_all, NULL);

	if (rc == 0)
		rc = bp_text_print_if_fits(out, r, print_latency_narrow, NULL);
	if (rc == 0)
		fputs("latency: wider than the terminal (-v shows it)\n", out);
	return rc < 0 ? rc : ferror(out) ? -EIO : 0;
}
