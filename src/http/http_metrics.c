/* What http emits (http_report.c, result_latency.c for the intervals' latency). */
#include "http/http_metrics.h"

#define L BP_BETTER_LOWER
#define H BP_BETTER_HIGHER
#define N BP_BETTER_NONE

static const struct bp_metric_decl http_metrics[] = {
	{ "requests.rate", "op/s", H, 1, BP_COMBINE_SUM, BP_SCOPE_BOTH, false,
	  "whole responses per second" },
	{ "errors", "count", L, 2, BP_COMBINE_SUM, BP_SCOPE_BOTH, false,
	  "requests that failed, all reasons" },
	{ "errors.*", "count", L, 0, BP_COMBINE_SUM, BP_SCOPE_TOTAL, false,
	  "failures of one reason: connect, read, write, timeout, parse, status" },
	{ "status.*", "count", N, 0, BP_COMBINE_SUM, BP_SCOPE_TOTAL, false,
	  "responses with that status code" },
	{ "requests", "count", N, 0, BP_COMBINE_SUM, BP_SCOPE_TOTAL, false,
	  "whole responses" },
	{ "bytes", "B", N, 0, BP_COMBINE_SUM, BP_SCOPE_TOTAL, false,
	  "response bytes received" },
	{ "bytes.rate", "B/s", H, 0, BP_COMBINE_SUM, BP_SCOPE_BOTH, false,
	  "response bytes received per second" },
	{ "connections", "count", N, 0, BP_COMBINE_SUM, BP_SCOPE_TOTAL, false,
	  "connections opened" },
	{ "connections.rate", "op/s", H, 0, BP_COMBINE_SUM, BP_SCOPE_TOTAL, false,
	  "connections opened per second (--new-conn)" },
	{ "offered.rate", "op/s", N, 0, BP_COMBINE_SUM, BP_SCOPE_TOTAL, false,
	  "the rate --rate asked for" },
	{ "requests.offered", "count", N, 0, BP_COMBINE_SUM, BP_SCOPE_TOTAL, false,
	  "requests due on the --rate schedule" },
	{ "late", "count", L, 0, BP_COMBINE_SUM, BP_SCOPE_TOTAL, false,
	  "requests sent after their due time (--rate)" },
	{ "cpu.per_request", "ns", L, 0, BP_COMBINE_MEAN, BP_SCOPE_TOTAL, false,
	  "client CPU time per request, user and system" },
	{ "latency.p50", "ns", L, 0, BP_COMBINE_HISTOGRAM, BP_SCOPE_INTERVAL, false,
	  "the interval's median request latency" },
	{ "latency.p99", "ns", L, 0, BP_COMBINE_HISTOGRAM, BP_SCOPE_INTERVAL, false,
	  "the interval's 99th percentile request latency" },
	{ "latency.max", "ns", L, 0, BP_COMBINE_HISTOGRAM, BP_SCOPE_INTERVAL, false,
	  "the interval's slowest request" },
};

const struct bp_kind bp_kind_http = {
	.name = "http",
	.metrics = http_metrics,
	.nmetrics = sizeof(http_metrics) / sizeof(http_metrics[0]),
	.headline_latency = "request",
	.repeatable = true,
};
