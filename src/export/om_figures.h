/*
 * The stored figures as Prometheus families: one gauge sample per (board, label, test,
 * metric) with those as labels (and the label a dotted part became, om_name.h), grouped
 * into families as both formats require (each family once, its samples together, no two
 * with the same labels), and boardperf_result_timestamp_seconds{board,label,test}: when
 * the newest result those figures come from was measured, so that an alert can tell a
 * board that stopped reporting. (A gauge, not a sample timestamp: node_exporter's
 * textfile collector refuses files with timestamps.)
 */
#ifndef BP_EXPORT_OM_FIGURES_H
#define BP_EXPORT_OM_FIGURES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "export/om_name.h"
#include "export/om_text.h"

struct bp_om_figure {
	struct bp_om_name name;
	char *board, *label, *test, *metric, *unit;
	double value;                /* in the family's unit */
	int64_t time_unix;
	size_t seq;                  /* the order added */
};

struct bp_om_figures {
	struct bp_om_figure *v;
	size_t n, cap;
	size_t unnamed;              /* figures whose name gave no Prometheus name */
	size_t not_finite;           /* values that are not finite numbers */
	size_t clashes;              /* figures whose family and labels another had: left out */
};

/*
 * Adds one stored figure (value in unit, the result's). 0, or -ENOMEM. A figure that has no
 * name or no finite value is only counted (unnamed, not_finite): the export goes on.
 */
int bp_om_figures_add(struct bp_om_figures *set, const char *board, const char *label,
		      const char *test, const char *metric, const char *unit, double value,
		      int64_t time_unix);

/*
 * Every family, sorted by name, then the timestamps; no "# EOF" (the caller may add
 * families of its own first). Counts the clashes left out.
 */
void bp_om_figures_write(struct bp_om_figures *set, FILE *out, enum bp_om_format f);

void bp_om_figures_free(struct bp_om_figures *set);

/*
 * Whether name is a family boardperf writes itself (the server's counters of `serve
 * --metrics`, the timestamps, boardperf_build_info, boardperf_store_readable): a stored
 * figure that comes out under one of these names ("server.tests" as a count) is left out as
 * a clash, so that a scrape never holds one family twice.
 */
bool bp_om_own_family(const char *name);

#endif
