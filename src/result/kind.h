/*
 * What a test kind is, in one place: its metric catalogue (every figure it may emit in any
 * mode, with unit, better, headline place, how several testers' figures combine and a
 * one-line meaning) and its headline latency. Each kind's catalogue lives with the kind;
 * the registry (src/cli) hands the kinds down once at start (bp_kinds_install), so result/,
 * export/, report/ and compare/ look a kind up here without including anything above them.
 */
#ifndef BP_RESULT_KIND_H
#define BP_RESULT_KIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "result/result.h"

/* How the figures of several testers running the same test at once add up to one. */
enum bp_combine {
	BP_COMBINE_NONE = 0,  /* no meaningful whole: each tester's own */
	BP_COMBINE_SUM,
	BP_COMBINE_MEAN,
	BP_COMBINE_MAX,
	BP_COMBINE_MIN,
	BP_COMBINE_HISTOGRAM, /* latencies: merge the distributions, not their summaries */
};

/* Where a metric appears: the run's totals, its intervals, or both. */
enum bp_metric_scope {
	BP_SCOPE_TOTAL = 1,
	BP_SCOPE_INTERVAL = 2,
	BP_SCOPE_BOTH = 3,
};

struct bp_metric_decl {
	/*
	 * The name, or a pattern: a segment "*" stands for one non-empty dot-free segment
	 * (cpu's "*.*" for <algorithm>.<block size>, mem's "latency.*"), "**" for one or more
	 * (together's "*.**.alone": a label, then another test's figure).
	 */
	const char *name;
	/* one of the base units (bp_unit_is_base); "=" the borrowed figure's (borrowed_unit) */
	const char *unit;
	enum bp_better better;
	unsigned headline;   /* 0: not a headline figure; 1..: its place in the headline */
	enum bp_combine combine;
	enum bp_metric_scope scope;
	bool directed;       /* --bidir also emits it as up.<name> and down.<name> */
	const char *meaning; /* one line, for `boardperf metrics` */
};

/*
 * A part of a metric's dotted name that is a parameter of the figure, not its name (cpu's
 * block size in "sha256.8192", rfc2544's "frame64"): prefix followed by digits ("" : digits
 * alone; binary: the digits may end in KiB, MiB or GiB). OpenMetrics makes it label = the
 * digits (export/om_name.h).
 */
struct bp_label_part {
	const char *prefix, *label;
	bool binary;
};

/*
 * The charts `report` draws of the kind besides its latency percentiles: its interval
 * figures over time, or its own (and then no time series: rfc2544's intervals are its
 * trials, one rate each).
 */
enum bp_report_charts {
	BP_CHARTS_INTERVALS = 0, /* each interval figure over time */
	BP_CHARTS_FRAME_SIZES,   /* rfc2544: zero-loss rate and bit rate per frame size */
	BP_CHARTS_CPU_ITEMS,     /* cpu: each algorithm's speed by block size, per worker */
	BP_CHARTS_MEM,           /* mem: bandwidth by operation, latency by working set */
};

/* A text section a kind shows of its own (result/render_text.c): when has(r), print. */
struct bp_kind_text {
	bool (*has)(const struct bp_result *r);
	int (*print)(FILE *out, const struct bp_result *r);  /* 0 or an errno */
};

struct srv_half;

/*
 * What the control protocol needs to know of a network kind (proto/params.c), as flags:
 * 0 for a kind that runs no test over it. STREAMS: data streams, TCP (or SCTP) unless
 * DATAGRAMS; -n/-k count them. FLOWS: request/response, each of the client's streams a flow
 * that both sends and receives (no server-to-client streams, no -n/-k); over UDP with --udp
 * unless CONNS_WHILE_RUNNING: its connections come while it runs, none is opened before.
 */
enum bp_net_shape {
	BP_NET_STREAMS = 1 << 0,
	BP_NET_DATAGRAMS = 1 << 1,
	BP_NET_FLOWS = 1 << 2,
	BP_NET_CONNS_WHILE_RUNNING = 1 << 3,
};

struct bp_kind {
	const char *name;  /* the command word */
	const struct bp_metric_decl *metrics;
	size_t nmetrics;
	const char *headline_latency;  /* the latency summary shown as its p50 ("transaction"), or NULL */
	bool repeatable;               /* --repeat runs it several times */
	const struct bp_label_part *label_parts; /* BP_KIND_LABEL_PARTS; NULL: none */
	size_t nlabel_parts;
	enum bp_report_charts charts;
	/*
	 * A kind whose figures are other kinds' under names of its own (together: its tests'
	 * as "A.<figure>.alone") names the unit of the figure name borrows, which its row d
	 * (unit "=") cannot: the unit that figure has in its own kind, or NULL when name borrows
	 * none (no such test in r, a figure its kind does not declare). NULL for the others.
	 */
	const char *(*borrowed_unit)(const struct bp_result *r, const char *name,
				     const struct bp_metric_decl *d);
	/*
	 * Its text, where the generic one is not the best read; each optional. figures: its
	 * figures its own way, in place of the metric table, which -v adds back (disk's in
	 * sysbench's layout, gpio's methods side by side); extra: after the latency table
	 * (cpu: openssl speed's); after_live: right after the live lines (udp: the receiver's
	 * intervals, which come with the end).
	 */
	struct bp_kind_text figures, extra, after_live;
	/*
	 * Its half on boardperf serve (server/half.h), in its own folder; several kinds may
	 * share one (tcp and udp). NULL: serve does not run it.
	 */
	const struct srv_half *server_half;
	unsigned net;  /* enum bp_net_shape's flags; 0: not a network kind */
};

/*
 * One catalogue row, every field named: BP_METRIC("loss.percent", "percent", LOWER, MEAN,
 * BOTH, "meaning"), then any of .headline = N and .directed = true. better, combine and
 * scope are their enumerators' last words (BP_BETTER_LOWER, BP_COMBINE_MEAN, BP_SCOPE_BOTH),
 * so that a row reads as a line of the docs' tables and a misspelt one does not compile.
 */
#define BP_METRIC(name_, unit_, better_, combine_, scope_, meaning_, ...) \
	{ .name = (name_), .unit = (unit_), .better = BP_BETTER_##better_, \
	  .combine = BP_COMBINE_##combine_, .scope = BP_SCOPE_##scope_, \
	  .meaning = (meaning_), __VA_ARGS__ }

/* A kind's catalogue as its definition's .metrics and .nmetrics. */
#define BP_KIND_CATALOGUE(table) .metrics = (table), .nmetrics = sizeof(table) / sizeof((table)[0])

/* A kind's label parts as its definition's .label_parts and .nlabel_parts. */
#define BP_KIND_LABEL_PARTS(table) .label_parts = (table), \
	.nlabel_parts = sizeof(table) / sizeof((table)[0])

/*
 * Install the kinds bp_kind_find looks through (the registry's, or a unit test's own). The
 * array is kept, not copied: it must outlive every lookup. n 0 installs none.
 */
void bp_kinds_install(const struct bp_kind *const *kinds, size_t n);

/* The installed kind named name, or NULL (no kind installed under that name). */
const struct bp_kind *bp_kind_find(const char *name);

/* The installed kinds, in the registry's order; *n their number. */
const struct bp_kind *const *bp_kinds_installed(size_t *n);

/*
 * Whether name matches pattern: equal segment by segment, a "*" segment matching any one
 * non-empty segment without a dot.
 */
bool bp_metric_pattern_matches(const char *pattern, const char *name);

/*
 * The declaration of metric name in kind k, or NULL for one it does not declare. A
 * directed declaration also matches its up./down. forms.
 */
const struct bp_metric_decl *bp_kind_metric(const struct bp_kind *k, const char *name);

/* "none", "sum", "mean", "max", "min", "histogram". */
const char *bp_combine_name(enum bp_combine combine);

/* "total", "interval", "both". */
const char *bp_scope_name(enum bp_metric_scope scope);

/* Whether unit is one of the base units JSON and CSV carry (docs/json.md, "Units"). */
bool bp_unit_is_base(const char *unit);

#endif
