/*
 * latency's figures from its children (src/suite/latency_report.c): children built by
 * hand, as latency_run.c leaves them, and every figure checked against the arithmetic:
 * loaded minus idle per percentile, 60 s over the loaded TM95, the load's receivers
 * summed, the congestion control named; what is missing is left out, not made up.
 */
#include <math.h>
#include <stdbool.h>

#include "result/result.h"
#include "suite/latency_report.h"
#include "kinds.h"
#include "tap.h"

static const struct bp_metric *m(const struct bp_result *r, const char *name)
{
	return bp_result_find_metric(r, name);
}

static double mv(const struct bp_result *r, const char *name)
{
	const struct bp_metric *x = m(r, name);

	return x ? x->value : NAN;
}

static const struct bp_latency *lat(const struct bp_result *r, const char *what)
{
	for (size_t i = 0; i < r->nlatency; i++)
		if (!strcmp(r->latency[i].what, what))
			return &r->latency[i];
	return NULL;
}

/* An rr child: phase, protocol, its p50/p90/p99 (ms), TM95 (ms), failures. */
static struct bp_result *probe(const char *phase, bool udp, double p50, double p90, double p99,
			       double tm_ms, double failures)
{
	struct bp_result *r = bp_result_new("rr");
	struct bp_latency l = { .what = "transaction", .unit = "ns", .count = 100,
				.min = p50 * 0.5e6, .mean = p50 * 1.1e6, .p50 = p50 * 1e6,
				.p90 = p90 * 1e6, .p99 = p99 * 1e6, .p999 = p99 * 1e6,
				.p9999 = p99 * 1e6, .max = p99 * 1e6 };

	bp_result_set_params(r, json_pack("{s:s, s:s, s:b}", "phase", phase, "role", "probe",
					  "udp", udp));
	bp_result_add_latency(r, &l);
	bp_result_add_metric(r, "transaction.trimmed_mean_95", tm_ms * 1e6, "ns",
			     BP_BETTER_LOWER);
	bp_result_add_metric(r, "failures", failures, "count", BP_BETTER_LOWER);
	return r;
}

static struct bp_result *load(bool bidir, const char *cc_up, const char *cc_down)
{
	struct bp_result *r = bp_result_new("tcp");

	bp_result_set_params(r, json_pack("{s:s, s:s}", "phase", "loaded", "role", "load"));
	if (!bidir) {
		json_object_set_new(r->params, "congestion_used", json_string(cc_up));
		bp_result_add_metric(r, "receiver.bitrate", 19.1e6, "bit/s", BP_BETTER_HIGHER);
		bp_result_add_metric(r, "sender.retransmits", 42, "count", BP_BETTER_NONE);
		return r;
	}
	json_object_set_new(r->params, "up.congestion_used", json_string(cc_up));
	json_object_set_new(r->params, "down.congestion_used", json_string(cc_down));
	bp_result_add_metric(r, "up.receiver.bitrate", 19e6, "bit/s", BP_BETTER_HIGHER);
	bp_result_add_metric(r, "down.receiver.bitrate", 18e6, "bit/s", BP_BETTER_HIGHER);
	bp_result_add_metric(r, "up.sender.retransmits", 3, "count", BP_BETTER_NONE);
	bp_result_add_metric(r, "down.sender.retransmits", 4, "count", BP_BETTER_NONE);
	return r;
}

static struct bp_result *parent(void)
{
	struct bp_result *r = bp_result_new("latency");

	bp_result_set_params(r, json_object());
	return r;
}

/* Both protocols, an upload: every figure from the children's numbers. */
static void test_full(void)
{
	struct bp_result *r = parent();

	bp_result_add_child(r, probe("idle", false, 0.2, 0.3, 1.0, 0.25, 0));
	bp_result_add_child(r, probe("idle", true, 0.1, 0.2, 0.5, 0.12, 0));
	bp_result_add_child(r, probe("loaded", false, 100, 104, 130, 98, 0));
	bp_result_add_child(r, probe("loaded", true, 99, 103, 160, 97, 3));
	bp_result_add_child(r, load(false, "cubic", NULL));
	CHECK(bp_latency_report(r) == 0);
	CHECK_NEAR(mv(r, "tcp.added.p50"), 99.8e6, 1e-3);
	CHECK_NEAR(mv(r, "tcp.added.p90"), 103.7e6, 1e-3);
	CHECK_NEAR(mv(r, "tcp.added.p99"), 129e6, 1e-3);
	CHECK_NEAR(mv(r, "udp.added.p50"), 98.9e6, 1e-3);
	CHECK_NEAR(mv(r, "udp.added.p99"), 159.5e6, 1e-3);
	/* 60 s / 98 ms */
	CHECK_NEAR(mv(r, "tcp.rpm"), 60.0 / 0.098, 1e-9);
	CHECK_NEAR(mv(r, "udp.rpm"), 60.0 / 0.097, 1e-9);
	CHECK_NEAR(mv(r, "rpm"), mv(r, "tcp.rpm"), 0);
	CHECK_STR(m(r, "rpm")->unit, "rpm");
	CHECK(m(r, "rpm")->better == BP_BETTER_HIGHER);
	CHECK(m(r, "tcp.added.p50")->better == BP_BETTER_LOWER);
	CHECK_NEAR(mv(r, "load.bitrate"), 19.1e6, 0);
	CHECK_NEAR(mv(r, "load.retransmits"), 42, 0);
	CHECK_NEAR(mv(r, "udp.loaded.failures"), 3, 0);
	CHECK_STR(json_string_value(json_object_get(r->params, "congestion_used")), "cubic");
	CHECK(strstr(json_string_value(json_object_get(r->params, "rpm_method")), "TM95") != NULL);
	CHECK(lat(r, "idle.tcp") && lat(r, "loaded.tcp") && lat(r, "idle.udp") &&
	      lat(r, "loaded.udp"));
	CHECK_NEAR(lat(r, "loaded.udp")->p99, 160e6, 1e-3);
	CHECK(lat(r, "loaded.udp")->count == 100);
	/* the 3 lost UDP probes are said; TCP lost none */
	CHECK(bp_result_has_warning(r, "probes-lost"));
	CHECK(r->nwarnings == 1);
	bp_result_free(r);
}

/* UDP only, a bidir load whose directions ran different controls. */
static void test_udp_bidir(void)
{
	struct bp_result *r = parent();

	bp_result_add_child(r, probe("idle", true, 1, 2, 3, 1.5, 0));
	bp_result_add_child(r, probe("loaded", true, 201, 202, 203, 150, 0));
	bp_result_add_child(r, load(true, "cubic", "bbr"));
	CHECK(bp_latency_report(r) == 0);
	CHECK(!m(r, "tcp.added.p50") && !m(r, "tcp.rpm") && !lat(r, "idle.tcp"));
	CHECK_NEAR(mv(r, "udp.added.p50"), 200e6, 1e-3);
	CHECK_NEAR(mv(r, "rpm"), 400, 1e-9);  /* 60 s / 150 ms, the UDP probes' */
	CHECK_NEAR(mv(r, "load.bitrate"), 37e6, 0);
	CHECK_NEAR(mv(r, "load.retransmits"), 7, 0);
	CHECK_STR(json_string_value(json_object_get(r->params, "congestion_used")),
		  "up cubic, down bbr");
	CHECK(!bp_result_has_warning(r, "probes-lost"));
	bp_result_free(r);
}

/* A loaded phase that never ran (the idle one failed): idle figures only, no made-up delay. */
static void test_idle_only(void)
{
	struct bp_result *r = parent();

	bp_result_add_child(r, probe("idle", false, 1, 2, 3, 1.5, 0));
	CHECK(bp_latency_report(r) == 0);
	CHECK(lat(r, "idle.tcp") && !lat(r, "loaded.tcp"));
	CHECK(!m(r, "tcp.added.p50") && !m(r, "rpm") && !m(r, "load.bitrate"));
	CHECK(json_object_get(r->params, "congestion_used") == NULL);
	bp_result_free(r);
}

/* A load that failed: the loaded probes ran on an idle path, so no added delay or RPM. */
static void test_load_failed(void)
{
	struct bp_result *r = parent(), *l = load(false, "cubic", NULL);

	bp_result_set_error(l, "failed", "-C 'nosuchcc': congestion control not available");
	bp_result_add_child(r, probe("idle", false, 0.2, 0.3, 1.0, 0.25, 0));
	bp_result_add_child(r, probe("loaded", false, 0.2, 0.3, 1.0, 0.25, 0));
	bp_result_add_child(r, l);
	CHECK(bp_latency_report(r) == 0);
	CHECK(lat(r, "idle.tcp") && !lat(r, "loaded.tcp"));
	CHECK(!m(r, "tcp.added.p50") && !m(r, "tcp.rpm") && !m(r, "rpm"));
	CHECK(bp_result_has_warning(r, "load-failed"));
	CHECK(strstr(r->warnings[0].message, "nosuchcc") != NULL);
	bp_result_free(r);
}

int main(void)
{
	install_all_kinds();
	test_load_failed();
	test_full();
	test_udp_bidir();
	test_idle_only();
	return tap_done();
}
