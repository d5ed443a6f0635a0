/*
 * What bp_compare_build makes of the documents and every renderer of compare reads: runs
 * (the columns the user asked for) and one group per test that two runs or more have. A
 * group's columns are the runs that have that test, in the order given; column 0 is the
 * base every ratio is taken to. Values are in the contract's base units; NaN where a value
 * is null, a ratio is undefined, or a column has no geometric mean.
 */
#ifndef BP_COMPARE_COMPARE_MODEL_H
#define BP_COMPARE_COMPARE_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "compare/compare.h"
#include "result/result.h"

/* At most this many runs: a column set is a bit mask, and `compare` takes 16 arguments. */
#define BP_COMPARE_MAX_RUNS 16

enum bp_cmp_mark {
	BP_CMP_MARK_NONE,    /* the metric has no direction, or this is the base column */
	BP_CMP_MARK_SAME,    /* the ratio prints as 1.00x */
	BP_CMP_MARK_BETTER,
	BP_CMP_MARK_WORSE,
};

struct bp_cmp_run {
	char *name;     /* the column heading, unique */
	char *test;     /* the document's test: "run" for a suite */
	char *label;    /* params.label; NULL without */
	char *board;    /* env.inventory.board.model, else the CPU's summary; NULL unknown */
	char *date;     /* env.collected_at as recorded; NULL unknown */
	char *version;  /* env.boardperf.version; NULL unknown */
};

/* A metric every column of the group has. */
struct bp_cmp_row {
	char *name, *unit;
	enum bp_better better;
	double *value;           /* [ncols] */
	double *ratio;           /* [ncols]: value / base value; 1 in column 0 */
	enum bp_cmp_mark *mark;  /* [ncols] */
};

/* A test parameter whose value is not the same in every column. */
struct bp_cmp_param {
	char *name;
	json_t **value;   /* [ncols] (references); NULL where the run's params lack it */
	bool *differs;    /* [ncols]: not equal to column 0's */
};

/* A metric only some columns have. */
struct bp_cmp_partial {
	char *name, *unit;
	unsigned mask;    /* bit i: column i has it */
	double *value;    /* [ncols], NaN where absent */
};

struct bp_cmp_group {
	char *test;                 /* "tcp"; a suite's second cpu child "cpu (2)" */
	size_t ncols;
	size_t *run;                /* [ncols]: index into bp_compare.runs */
	size_t nrows;
	struct bp_cmp_row *rows;
	size_t nparams;
	struct bp_cmp_param *params;
	size_t npartial;
	struct bp_cmp_partial *partial;
	/* Per column: the geometric mean over the test's headline figures (its kind's
	 * catalogue; every row with a direction for a test no kind declares) of the ratios
	 * oriented so that above 1 is better (value/base when higher is better, base/value
	 * when lower is), how many rows it took and its mark; NaN and 0 in column 0. */
	double *geomean;
	size_t *geocount;
	enum bp_cmp_mark *geomark;
	/* [ncols]: "receiver.bitrate worse, sender.retransmits better" when the figures the
	 * mean took disagree in direction; NULL when they do not (or column 0) */
	char **mixed;
	/* [ncols]: the headline figures the mean could not take, and why ("failures: 0 in
	 * the base run"); NULL when it took them all */
	char **left_out;
	char **warnings;            /* [ncols]: the result's warning codes, ", "-joined; NULL none */
	char **error;               /* [ncols]: why the run could not measure; NULL when it did */
};

/* A test only one run has: listed, not compared. */
struct bp_cmp_single {
	char *test;
	size_t run;
};

struct bp_compare {
	size_t nruns;
	struct bp_cmp_run *runs;
	size_t ngroups;
	struct bp_cmp_group *groups;
	size_t nsingles;
	struct bp_cmp_single *singles;
};

/* The ratio as the tables print it: "1.30x" (three significant digits), "n/a" for NaN. */
#define BP_CMP_RATIO_LEN 32
char *bp_cmp_format_ratio(char *buf, double ratio);
/* "better", "worse", "same" or "" (none). */
const char *bp_cmp_mark_word(enum bp_cmp_mark m);
/* The mark of a column: by the ratio when it is defined, else by which value is larger. */
enum bp_cmp_mark bp_cmp_mark_of(enum bp_better better, double base, double value, double ratio);

/*
 * Parameters that say where or on what a run happened rather than what it measured
 * (client address, port, label, folder, the CPU's features, OpenSSL's version...): left
 * out of the comparison of parameters. The list is in compare_params.c.
 */
bool bp_cmp_param_ignored(const char *key);
/*
 * What is compared of a run's parameters (new reference; NULL when out of memory): doc's
 * params and, for a network test, the facts of its path that change what it measures
 * (path.medium, path.vlan_id, path.speed_mbps, path.duplex).
 */
json_t *bp_cmp_params_compared(const json_t *doc);

/* The parameters of a group's columns that differ: fills g->params. 0 or -ENOMEM. */
int bp_cmp_params_diff(struct bp_cmp_group *g, const json_t *const *params);

/* A parameter's value as one line of text (strings unquoted, absent "-"); malloc'd. */
char *bp_cmp_param_text(const json_t *v);

#endif
