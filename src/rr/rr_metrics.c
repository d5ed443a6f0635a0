/*
 * What rr and crr emit (rr_report.c, crr_search_run.c, result_latency.c for the intervals'
 * latency). One report serves both, so most figures are declared for both; a figure only
 * one mode emits (crr --search, --concurrent, --rate) is still declared: the catalogue is
 * every metric the kind may emit, not what one run does.
 */
#include "rr/rr_metrics.h"

#include "rr/rr_half.h"

/* The figures rr and crr share, less their headline figures and failures' place. */
#define RR_SHARED_METRICS \
	BP_METRIC("transactions", "count", NONE, SUM, BOTH, \
	  "transactions completed"), \
	BP_METRIC("failures.*", "count", LOWER, SUM, BOTH, \
	  "failures of one reason: refused, reset, timeout, no_port, other"), \
	BP_METRIC("offered.rate", "op/s", NONE, SUM, BOTH, \
	  "the rate --rate asked for (per trial under --search)"), \
	BP_METRIC("started", "count", NONE, SUM, TOTAL, \
	  "transactions started on the --rate schedule"), \
	BP_METRIC("late", "count", LOWER, SUM, TOTAL, \
	  "transactions started after their due time (--rate)"), \
	BP_METRIC("inflight.cap", "count", NONE, SUM, TOTAL, \
	  "sockets --rate may hold at once (--max-inflight)"), \
	BP_METRIC("inflight.peak", "count", NONE, SUM, TOTAL, \
	  "most sockets in flight at once (--rate)"), \
	BP_METRIC("inflight.waits", "count", LOWER, SUM, BOTH, \
	  "transactions due while every in-flight socket was busy"), \
	BP_METRIC("drained", "count", NONE, SUM, BOTH, \
	  "transactions still in flight at the end, waited for"), \
	BP_METRIC("failure_ratio", "percent", LOWER, MEAN, BOTH, \
	  "failed transactions in percent of those attempted (--max-failure-ratio)"), \
	BP_METRIC("pass", "count", HIGHER, MIN, TOTAL, \
	  "1 when failures stayed under --max-failure-ratio, else 0"), \
	BP_METRIC("concurrent.target", "count", NONE, SUM, TOTAL, \
	  "connections --concurrent asked to hold open"), \
	BP_METRIC("concurrent.established", "count", HIGHER, SUM, TOTAL, \
	  "most connections open at once (--concurrent)"), \
	BP_METRIC("concurrent.alive", "count", HIGHER, SUM, TOTAL, \
	  "connections still open at the end (--concurrent)"), \
	BP_METRIC("concurrent.dropped", "count", LOWER, SUM, TOTAL, \
	  "connections lost while held (--concurrent)"), \
	BP_METRIC("server.transactions", "count", NONE, SUM, TOTAL, \
	  "transactions the server says it answered"), \
	BP_METRIC("omitted", "count", NONE, NONE, INTERVAL, \
	  "1 on an interval inside --omit, left out of the totals"), \
	BP_METRIC("latency.p50", "ns", LOWER, HISTOGRAM, INTERVAL, \
	  "the interval's median transaction latency"), \
	BP_METRIC("latency.p99", "ns", LOWER, HISTOGRAM, INTERVAL, \
	  "the interval's 99th percentile transaction latency"), \
	BP_METRIC("latency.max", "ns", LOWER, HISTOGRAM, INTERVAL, \
	  "the interval's slowest transaction")

/* rr --iperf2 --trip-times: a direction's one-way delay, from the server's times */
#define RR_OWD_METRICS(dir, what) \
	BP_METRIC(dir ".owd.mean", "ns", LOWER, MEAN, TOTAL, \
	  what "' one-way delay, mean (--iperf2 --trip-times: across two clocks)"), \
	BP_METRIC(dir ".owd.min", "ns", LOWER, MIN, TOTAL, what "' one-way delay, least"), \
	BP_METRIC(dir ".owd.max", "ns", LOWER, MAX, TOTAL, what "' one-way delay, most"), \
	BP_METRIC(dir ".owd.stdev", "ns", LOWER, MAX, TOTAL, \
	  what "' one-way delay, standard deviation")

static const struct bp_metric_decl rr_metrics[] = {
	BP_METRIC("transactions.rate", "op/s", HIGHER, SUM, BOTH,
	  "request-response transactions per second", .headline = 1),
	BP_METRIC("transaction.trimmed_mean_95", "ns", LOWER, HISTOGRAM, TOTAL,
	  "mean transaction latency without the slowest 5 %"),
	BP_METRIC("failures", "count", LOWER, SUM, BOTH,
	  "transactions that failed, all reasons"),
	RR_OWD_METRICS("request", "requests"),
	RR_OWD_METRICS("response", "responses"),
	RR_SHARED_METRICS,
};

static const struct bp_metric_decl crr_metrics[] = {
	BP_METRIC("connections.rate", "op/s", HIGHER, SUM, BOTH,
	  "connections opened, used and closed per second", .headline = 1),
	BP_METRIC("failures", "count", LOWER, SUM, BOTH,
	  "transactions that failed, all reasons", .headline = 2),
	BP_METRIC("connections", "count", NONE, SUM, TOTAL,
	  "connections opened"),
	BP_METRIC("syn_retransmits", "count", LOWER, SUM, BOTH,
	  "SYNs the kernel sent again"),
	BP_METRIC("started.rate", "op/s", NONE, SUM, INTERVAL,
	  "connections a --search trial started per second"),
	BP_METRIC("passed", "count", NONE, MIN, INTERVAL,
	  "1 when a --search trial stayed under --max-failure-ratio, else 0"),
	BP_METRIC("search.rate", "op/s", HIGHER, NONE, TOTAL,
	  "highest offered rate --search found within --max-failure-ratio"),
	BP_METRIC("search.connections.rate", "op/s", HIGHER, NONE, TOTAL,
	  "connections per second carried at that rate"),
	BP_METRIC("search.failure_ratio", "percent", LOWER, NONE, TOTAL,
	  "failures in percent at that rate"),
	BP_METRIC("search.failed_rate", "op/s", NONE, NONE, TOTAL,
	  "lowest offered rate that failed the threshold"),
	BP_METRIC("trials", "count", NONE, NONE, TOTAL,
	  "trials --search ran"),
	BP_METRIC("trials.repeated", "count", NONE, NONE, TOTAL,
	  "trials run again to confirm a pass"),
	RR_SHARED_METRICS,
};

const struct bp_kind bp_kind_rr = {
	.name = "rr",
	BP_KIND_CATALOGUE(rr_metrics),
	.headline_latency = "transaction",
	.repeatable = true,
	.server_half = &srv_half_rr,
	.net = BP_NET_FLOWS,
};

const struct bp_kind bp_kind_crr = {
	.name = "crr",
	BP_KIND_CATALOGUE(crr_metrics),
	.repeatable = true,
	.server_half = &srv_half_crr,
	.net = BP_NET_FLOWS | BP_NET_CONNS_WHILE_RUNNING,
};
