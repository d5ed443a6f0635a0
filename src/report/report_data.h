/*
 * The documents of a report, test by test (internal to src/report): every result, a suite's
 * children included, as an entry with the name its run goes by in the charts, and the checked
 * readers of a document's values (documents come from files another board wrote: any member
 * may be missing or of another type).
 */
#ifndef BP_REPORT_REPORT_DATA_H
#define BP_REPORT_REPORT_DATA_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "report/report.h"

struct bp_report_entry {
	char *series;        /* the run's name, made unique within its test: "box1 (2)" */
	const json_t *doc;   /* one test's result */
};

/* The entries of one test, in the order of the runs. */
struct bp_report_test {
	const char *test;
	size_t n;
	struct bp_report_entry *e;
};

struct bp_report_data {
	size_t ntests;
	struct bp_report_test *tests;
};

/* 0 or -ENOMEM / -EINVAL (a document without "test", naming its run) with err. */
int bp_report_data_build(struct bp_report_data *d, const struct bp_report_run *runs, size_t n,
			 char *err, size_t errlen);
void bp_report_data_free(struct bp_report_data *d);

/* A number at doc's member key (NAN: missing, null or not a number). */
double bp_report_num(const json_t *obj, const char *key);
/* A string member, or NULL. */
const char *bp_report_str(const json_t *obj, const char *key);
/* The value of the top-level metric name (NAN without), and its unit in *unit when found. */
double bp_report_metric(const json_t *doc, const char *name, const char **unit);

/* The unit of an interval's metric: the top-level metric's of the same name when the
 * document has one, else by its name (".bitrate" bit/s, ".pps" pkt/s, ".rate" op/s,
 * ".bandwidth" B/s, ".percent" percent, "rtt", "jitter", "latency.*" ns); NULL: unknown. */
const char *bp_report_interval_unit(const json_t *doc, const char *name);

#endif
