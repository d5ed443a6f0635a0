/* What http emits (http_report.c, result_latency.c for the intervals' latency). */
#include "http/http_metrics.h"

static const struct bp_metric_decl http_metrics[] = {
	BP_METRIC("requests.rate", "op/s", HIGHER, SUM, BOTH,
	  "whole responses per second", .headline = 1),
	BP_METRIC("errors", "count", LOWER, SUM, BOTH,
	  "requests that failed, all reasons", .headline = 2),
	BP_METRIC("errors.*", "count", LOWER, SUM, TOTAL,
	  "failures of one reason: connect, read, write, timeout, parse, status"),
	BP_METRIC("status.*", "count", NONE, SUM, TOTAL,
	  "responses with that status code"),
	BP_METRIC("requests", "count", NONE, SUM, TOTAL,
	  "whole responses"),
	BP_METRIC("bytes", "B", NONE, SUM, TOTAL,
	  "response bytes received"),
	BP_METRIC("bytes.rate", "B/s", HIGHER, SUM, BOTH,
	  "response bytes received per second"),
	BP_METRIC("connections", "count", NONE, SUM, TOTAL,
	  "connections opened"),
	BP_METRIC("connections.rate", "op/s", HIGHER, SUM, TOTAL,
	  "connections opened per second (--new-conn)"),
	BP_METRIC("offered.rate", "op/s", NONE, SUM, TOTAL,
	  "the rate --rate asked for"),
	BP_METRIC("requests.offered", "count", NONE, SUM, TOTAL,
	  "requests due on the --rate schedule"),
	BP_METRIC("late", "count", LOWER, SUM, TOTAL,
	  "requests sent after their due time (--rate)"),
	BP_METRIC("failure_ratio", "percent", LOWER, MEAN, TOTAL,
	  "failed requests in percent of those tried (--max-failure-ratio)"),
	BP_METRIC("pass", "count", HIGHER, MIN, TOTAL,
	  "1 when failures stayed under --max-failure-ratio, else 0"),
	BP_METRIC("cpu.per_request", "ns", LOWER, MEAN, TOTAL,
	  "client CPU time per request, user and system"),
	BP_METRIC("latency.p50", "ns", LOWER, HISTOGRAM, INTERVAL,
	  "the interval's median request latency"),
	BP_METRIC("latency.p99", "ns", LOWER, HISTOGRAM, INTERVAL,
	  "the interval's 99th percentile request latency"),
	BP_METRIC("latency.max", "ns", LOWER, HISTOGRAM, INTERVAL,
	  "the interval's slowest request"),
};

/* "status.200": the status code */
static const struct bp_label_part http_label_parts[] = {
	{ "", "code", false },
};

const struct bp_kind bp_kind_http = {
	.name = "http",
	BP_KIND_CATALOGUE(http_metrics),
	.headline_latency = "request",
	.repeatable = true,
	BP_KIND_LABEL_PARTS(http_label_parts),
};
