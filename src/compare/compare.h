/*
 * Results side by side (`boardperf compare`, docs/results.md, "Comparing boards (`compare`)"): one
 * table per test with a row per metric every run of it has, a column per run, each run's
 * ratio to the test's first run marked better or worse by the metric's "better"; what only
 * some runs have, parameters that differ and each run's warnings are shown in the table,
 * never dropped. The engine reads result documents (the JSON contract) only, so a run from
 * the store and a file from another board compare alike; resolving what the user typed is
 * bp_store_resolve's job (store/store.h).
 */
#ifndef BP_COMPARE_COMPARE_H
#define BP_COMPARE_COMPARE_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

struct bp_compare;                       /* the table: runs x metrics, ratios, flags */

/*
 * docs: result documents (boardperf/1; a suite's "results" children are compared test by
 * test); names: a column heading each (a label, "#12", a file name; NULL: "run N"; a name
 * given twice gets " (2)"). The table copies what it needs: docs may be freed after. NULL
 * with a one-line reason in err: fewer than two runs, a document that is not a boardperf/1
 * result (naming its column), no test that two of the runs have, out of memory.
 */
struct bp_compare *bp_compare_build(json_t *const *docs, const char *const *names, size_t n,
				    char *err, size_t errlen);
void bp_compare_free(struct bp_compare *c);

enum bp_compare_format { BP_COMPARE_TEXT, BP_COMPARE_MARKDOWN, BP_COMPARE_CSV,
			 BP_COMPARE_HTML /* a <section> fragment, no <html> */, BP_COMPARE_JSON };

/* Prints the table in format f (docs/results.md, "Comparing boards": each format's shape). 0,
 * -EINVAL, -ENOMEM or -EIO. */
int bp_compare_render(const struct bp_compare *c, enum bp_compare_format f, FILE *out);

#endif
