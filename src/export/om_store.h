/*
 * The stored figures of a results database as Prometheus families: the newest value per
 * (board, label, test, metric) from bp_store_latest_metrics, named and labelled as
 * om_figures.h says. Shared by `export --openmetrics` and the scrape of `serve --metrics
 * --db FILE`.
 */
#ifndef BP_EXPORT_OM_STORE_H
#define BP_EXPORT_OM_STORE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "export/om_text.h"

/* What an export wrote and left out (om_figures.h says why each is left out). */
struct bp_om_store_counts {
	size_t figures, results, unnamed, not_finite, clashes;
};

/*
 * Writes the families of the database at db (NULL: the default path; it must exist) since
 * since_unix (0: all), without "# EOF". 0, or -errno with a line naming the file in err;
 * nothing is written on an error.
 */
int bp_om_store_write(const char *db, int64_t since_unix, FILE *out, enum bp_om_format f,
		      struct bp_om_store_counts *counts, char *err, size_t errlen);

#endif
