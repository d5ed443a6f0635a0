/*
 * The kind lookup and metric matching: patterns ("*" for one dot-free segment), the up./down.
 * forms of a directed metric, installing and finding kinds, the names of the enums.
 */
#include "result/kind.h"

#include "tap.h"

static void check_patterns(void)
{
	CHECK(bp_metric_pattern_matches("receiver.bitrate", "receiver.bitrate"));
	CHECK(!bp_metric_pattern_matches("receiver.bitrate", "receiver.bitrates"));
	CHECK(!bp_metric_pattern_matches("receiver.bitrate", "receiver"));
	CHECK(!bp_metric_pattern_matches("receiver", "receiver.bitrate"));
	CHECK(bp_metric_pattern_matches("latency.*", "latency.64MiB"));
	CHECK(!bp_metric_pattern_matches("latency.*", "latency."));
	CHECK(!bp_metric_pattern_matches("latency.*", "latency"));
	CHECK(!bp_metric_pattern_matches("latency.*", "latency.64MiB.p99"));
	CHECK(bp_metric_pattern_matches("*.*", "aes-128-gcm.8192"));
	CHECK(!bp_metric_pattern_matches("*.*", "rsa2048"));
	CHECK(bp_metric_pattern_matches("*.sign", "rsa2048.sign"));
	CHECK(!bp_metric_pattern_matches("*.sign", ".sign"));
	CHECK(bp_metric_pattern_matches("status.*.count", "status.404.count"));
	CHECK(!bp_metric_pattern_matches("status.*.count", "status.404.rate"));
	/* "**": one or more segments, then the rest of the pattern */
	CHECK(bp_metric_pattern_matches("*.**.alone", "A.sha256.16.alone"));
	CHECK(bp_metric_pattern_matches("*.**.alone", "B.receiver.pps.alone"));
	CHECK(bp_metric_pattern_matches("*.**.alone", "A.x.alone"));
	CHECK(!bp_metric_pattern_matches("*.**.alone", "A.alone"));
	CHECK(!bp_metric_pattern_matches("*.**.alone", "A.x.alone.min"));
	CHECK(bp_metric_pattern_matches("*.**.degradation.min", "A.x.degradation.min"));
	CHECK(bp_metric_pattern_matches("*.**", "A.receiver.bitrate"));
	CHECK(!bp_metric_pattern_matches("*.**", "A"));
	CHECK(!bp_metric_pattern_matches("*.**", "A."));
	CHECK(bp_metric_pattern_matches("**", "a.b.c"));
	CHECK(bp_metric_pattern_matches("a.**.c.d", "a.b.c.c.d"));
	CHECK(!bp_metric_pattern_matches("a.**.c", "a.c"));
	CHECK(!bp_metric_pattern_matches("", "x"));
	CHECK(bp_metric_pattern_matches("", ""));
	CHECK(!bp_metric_pattern_matches(NULL, "x"));
	CHECK(!bp_metric_pattern_matches("x", NULL));
}

static const struct bp_metric_decl tcp_metrics[] = {
	BP_METRIC("receiver.bitrate", "bit/s", HIGHER, SUM, BOTH,
		  "bits the receiver took per second", .headline = 1, .directed = true),
	BP_METRIC("sender.retransmits", "count", LOWER, SUM, TOTAL, "segments sent again",
		  .headline = 2),
	BP_METRIC("latency.*", "ns", LOWER, MAX, TOTAL, "a pattern"),
};
static const struct bp_kind tcp = { .name = "tcp", BP_KIND_CATALOGUE(tcp_metrics),
				    .repeatable = true };
static const struct bp_kind rr = { .name = "rr", .headline_latency = "transaction",
				   .repeatable = true };

static void check_lookup(void)
{
	static const struct bp_kind *const kinds[] = { &tcp, &rr };
	size_t n = 99;

	bp_kinds_install(NULL, 0);
	CHECK(bp_kind_find("tcp") == NULL);
	CHECK(bp_kinds_installed(&n) == NULL && n == 0);
	bp_kinds_install(kinds, 2);
	CHECK(bp_kind_find("tcp") == &tcp);
	CHECK(bp_kind_find("rr") == &rr);
	CHECK(bp_kind_find("udp") == NULL);
	CHECK(bp_kind_find(NULL) == NULL);
	CHECK(bp_kinds_installed(&n) == kinds && n == 2);
	CHECK_INT((int)tcp.nmetrics, 3);

	/* BP_METRIC: each word in its field, the optional ones 0 unless named */
	CHECK(tcp_metrics[0].better == BP_BETTER_HIGHER && tcp_metrics[0].combine == BP_COMBINE_SUM &&
	      tcp_metrics[0].scope == BP_SCOPE_BOTH && tcp_metrics[0].headline == 1 &&
	      tcp_metrics[0].directed && !strcmp(tcp_metrics[0].unit, "bit/s"));
	CHECK(tcp_metrics[1].headline == 2 && !tcp_metrics[1].directed &&
	      tcp_metrics[1].scope == BP_SCOPE_TOTAL);
	CHECK(tcp_metrics[2].headline == 0 && !tcp_metrics[2].directed &&
	      tcp_metrics[2].combine == BP_COMBINE_MAX && !strcmp(tcp_metrics[2].meaning, "a pattern"));
	CHECK(bp_kind_metric(&tcp, "receiver.bitrate") == &tcp_metrics[0]);
	CHECK(bp_kind_metric(&tcp, "up.receiver.bitrate") == &tcp_metrics[0]);
	CHECK(bp_kind_metric(&tcp, "down.receiver.bitrate") == &tcp_metrics[0]);
	CHECK(bp_kind_metric(&tcp, "up.sender.retransmits") == NULL);  /* not directed */
	CHECK(bp_kind_metric(&tcp, "sender.retransmits") == &tcp_metrics[1]);
	CHECK(bp_kind_metric(&tcp, "latency.4KiB") == &tcp_metrics[2]);
	CHECK(bp_kind_metric(&tcp, "sideways.receiver.bitrate") == NULL);
	CHECK(bp_kind_metric(&tcp, "loss.percent") == NULL);
	CHECK(bp_kind_metric(&rr, "transactions.rate") == NULL);
	CHECK(bp_kind_metric(NULL, "x") == NULL);
	bp_kinds_install(NULL, 0);
}

static void check_names(void)
{
	CHECK_STR(bp_combine_name(BP_COMBINE_NONE), "none");
	CHECK_STR(bp_combine_name(BP_COMBINE_SUM), "sum");
	CHECK_STR(bp_combine_name(BP_COMBINE_MEAN), "mean");
	CHECK_STR(bp_combine_name(BP_COMBINE_MAX), "max");
	CHECK_STR(bp_combine_name(BP_COMBINE_MIN), "min");
	CHECK_STR(bp_combine_name(BP_COMBINE_HISTOGRAM), "histogram");
	CHECK_STR(bp_scope_name(BP_SCOPE_TOTAL), "total");
	CHECK_STR(bp_scope_name(BP_SCOPE_INTERVAL), "interval");
	CHECK_STR(bp_scope_name(BP_SCOPE_BOTH), "both");
	CHECK(bp_unit_is_base("bit/s"));
	CHECK(bp_unit_is_base("count"));
	CHECK(!bp_unit_is_base("Mbit/s"));
	CHECK(!bp_unit_is_base(NULL));
}

int main(void)
{
	check_patterns();
	check_lookup();
	check_names();
	return tap_done();
}
