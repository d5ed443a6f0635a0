/*
 * What rr and crr emit (rr_report.c, crr_search_run.c, result_latency.c for the intervals'
 * latency). One report serves both, so most figures are declared for both; a figure only
 * one mode emits (crr --search, --concurrent, --rate) is still declared: the catalogue is
 * every metric the kind may emit, not what one run does.
 */
#include "rr/rr_metrics.h"

#define L BP_BETTER_LOWER
#define H BP_BETTER_HIGHER
#define N BP_BETTER_NONE
#define TOTAL BP_SCOPE_TOTAL
#define IV BP_SCOPE_INTERVAL
#define BOTH BP_SCOPE_BOTH

/* The figures rr and crr share, less their headline figures and failures' place. */
#define RR_SHARED_METRICS \
	{ "transactions", "count", N, 0, BP_COMBINE_SUM, BOTH, false, \
	  "transactions completed" }, \
	{ "failures.*", "count", L, 0, BP_COMBINE_SUM, BOTH, false, \
	  "failures of one reason: refused, reset, timeout, no_port, other" }, \
	{ "offered.rate", "op/s", N, 0, BP_COMBINE_SUM, BOTH, false, \
	  "the rate --rate asked for (per trial under --search)" }, \
	{ "started", "count", N, 0, BP_COMBINE_SUM, TOTAL, false, \
	  "transactions started on the --rate schedule" }, \
	{ "late", "count", L, 0, BP_COMBINE_SUM, TOTAL, false, \
	  "transactions started after their due time (--rate)" }, \
	{ "inflight.cap", "count", N, 0, BP_COMBINE_SUM, TOTAL, false, \
	  "sockets --rate may hold at once (--max-inflight)" }, \
	{ "inflight.peak", "count", N, 0, BP_COMBINE_SUM, TOTAL, false, \
	  "most sockets in flight at once (--rate)" }, \
	{ "inflight.waits", "count", L, 0, BP_COMBINE_SUM, BOTH, false, \
	  "transactions due while every in-flight socket was busy" }, \
	{ "drained", "count", N, 0, BP_COMBINE_SUM, BOTH, false, \
	  "transactions still in flight at the end, waited for" }, \
	{ "failure_ratio", "percent", L, 0, BP_COMBINE_MEAN, BOTH, false, \
	  "failed transactions in percent of those attempted (--max-failure-ratio)" }, \
	{ "pass", "count", H, 0, BP_COMBINE_MIN, TOTAL, false, \
	  "1 when failures stayed under --max-failure-ratio, else 0" }, \
	{ "concurrent.target", "count", N, 0, BP_COMBINE_SUM, TOTAL, false, \
	  "connections --concurrent asked to hold open" }, \
	{ "concurrent.established", "count", H, 0, BP_COMBINE_SUM, TOTAL, false, \
	  "most connections open at once (--concurrent)" }, \
	{ "concurrent.alive", "count", H, 0, BP_COMBINE_SUM, TOTAL, false, \
	  "connections still open at the end (--concurrent)" }, \
	{ "concurrent.dropped", "count", L, 0, BP_COMBINE_SUM, TOTAL, false, \
	  "connections lost while held (--concurrent)" }, \
	{ "server.transactions", "count", N, 0, BP_COMBINE_SUM, TOTAL, false, \
	  "transactions the server says it answered" }, \
	{ "omitted", "count", N, 0, BP_COMBINE_NONE, IV, false, \
	  "1 on an interval inside --omit, left out of the totals" }, \
	{ "latency.p50", "ns", L, 0, BP_COMBINE_HISTOGRAM, IV, false, \
	  "the interval's median transaction latency" }, \
	{ "latency.p99", "ns", L, 0, BP_COMBINE_HISTOGRAM, IV, false, \
	  "the interval's 99th percentile transaction latency" }, \
	{ "latency.max", "ns", L, 0, BP_COMBINE_HISTOGRAM, IV, false, \
	  "the interval's slowest transaction" }

static const struct bp_metric_decl rr_metrics[] = {
	{ "transactions.rate", "op/s", H, 1, BP_COMBINE_SUM, BOTH, false,
	  "request-response transactions per second" },
	{ "transaction.trimmed_mean_95", "ns", L, 0, BP_COMBINE_HISTOGRAM, TOTAL, false,
	  "mean transaction latency without the slowest 5 %" },
	{ "failures", "count", L, 0, BP_COMBINE_SUM, BOTH, false,
	  "transactions that failed, all reasons" },
	RR_SHARED_METRICS,
};

static const struct bp_metric_decl crr_metrics[] = {
	{ "connections.rate", "op/s", H, 1, BP_COMBINE_SUM, BOTH, false,
	  "connections opened, used and closed per second" },
	{ "failures", "count", L, 2, BP_COMBINE_SUM, BOTH, false,
	  "transactions that failed, all reasons" },
	{ "connections", "count", N, 0, BP_COMBINE_SUM, TOTAL, false,
	  "connections opened" },
	{ "syn_retransmits", "count", L, 0, BP_COMBINE_SUM, BOTH, false,
	  "SYNs the kernel sent again" },
	{ "started.rate", "op/s", N, 0, BP_COMBINE_SUM, IV, false,
	  "connections a --search trial started per second" },
	{ "passed", "count", N, 0, BP_COMBINE_MIN, IV, false,
	  "1 when a --search trial stayed under --max-failure-ratio, else 0" },
	{ "search.rate", "op/s", H, 0, BP_COMBINE_NONE, TOTAL, false,
	  "highest offered rate --search found within --max-failure-ratio" },
	{ "search.connections.rate", "op/s", H, 0, BP_COMBINE_NONE, TOTAL, false,
	  "connections per second carried at that rate" },
	{ "search.failure_ratio", "percent", L, 0, BP_COMBINE_NONE, TOTAL, false,
	  "failures in percent at that rate" },
	{ "search.failed_rate", "op/s", N, 0, BP_COMBINE_NONE, TOTAL, false,
	  "lowest offered rate that failed the threshold" },
	{ "trials", "count", N, 0, BP_COMBINE_NONE, TOTAL, false,
	  "trials --search ran" },
	{ "trials.repeated", "count", N, 0, BP_COMBINE_NONE, TOTAL, false,
	  "trials run again to confirm a pass" },
	RR_SHARED_METRICS,
};

const struct bp_kind bp_kind_rr = {
	.name = "rr",
	.metrics = rr_metrics,
	.nmetrics = sizeof(rr_metrics) / sizeof(rr_metrics[0]),
	.headline_latency = "transaction",
	.repeatable = true,
};

const struct bp_kind bp_kind_crr = {
	.name = "crr",
	.metrics = crr_metrics,
	.nmetrics = sizeof(crr_metrics) / sizeof(crr_metrics[0]),
	.repeatable = true,
};
