/*
 * The stream report from crafted side results: every rate, of each interval and of the
 * totals, is its bytes over the span it carries (sender.span, receiver.span), also where the
 * two ends' spans differ (the server's last interval takes in what it counted after the
 * client's end); spans that differ and rates that disagree are named in warnings, with the
 * figures; equal ones give none.
 */
#include <stdlib.h>
#include <string.h>

#include "proto/params.h"
#include "stream/stream_report.h"
#include "kinds.h"
#include "tap.h"
#include "stream/results_fixture.h"

/* One interval of this side: bytes it sent (sender) or received over [start, end). */
static void add_iv(struct bp_net_results *r, bool sender, uint64_t bytes, double start,
		   double end)
{
	struct bp_net_interval *iv = &r->intervals[r->nintervals++];

	memset(iv, 0, sizeof(*iv));
	iv->start_s = start;
	iv->end_s = end;
	iv->retransmits = sender ? 0 : -1;
	*(sender ? &iv->sent : &iv->received) = bytes;
}

static struct bp_net_results *side(void)
{
	struct bp_net_results *r = calloc(1, sizeof(*r));

	r->busy_max = 0.1;
	snprintf(r->sent_counts, sizeof(r->sent_counts), "acked");
	return r;
}

static const struct bp_metric *find(const struct bp_metric *m, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(m[i].name, name))
			return &m[i];
	return NULL;
}

/*
 * Every "<p>.bitrate" among these metrics has "<p>.bytes" and "<p>.span" beside it, and
 * equals bytes * 8 / span; returns how many rates were checked.
 */
static int check_rates(const struct bp_metric *m, size_t n, const char *where)
{
	int checked = 0;

	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(m[i].name);
		char base[96], name[128];
		const struct bp_metric *bytes, *span;

		if (len < 8 || strcmp(m[i].name + len - 8, ".bitrate"))
			continue;
		snprintf(base, sizeof(base), "%.*s", (int)(len - 8), m[i].name);
		snprintf(name, sizeof(name), "%s.bytes", base);
		bytes = find(m, n, name);
		snprintf(name, sizeof(name), "%s.span", base);
		span = find(m, n, name);
		CHECK(bytes && span);
		if (!bytes || !span)
			continue;
		CHECK_NEAR(m[i].value, bytes->value * 8 / (span->value / 1e9), m[i].value * 1e-9);
		if (fabs(m[i].value - bytes->value * 8 / (span->value / 1e9)) > m[i].value * 1e-9)
			printf("#   in the %s: %s\n", where, m[i].name);
		checked++;
	}
	return checked;
}

/* Rates checked over the totals and every interval. */
static int check_all_rates(const struct bp_result *r)
{
	int n = check_rates(r->metrics, r->nmetrics, "totals");

	for (size_t i = 0; i < r->nintervals; i++)
		n += check_rates(r->intervals[i].metrics, r->intervals[i].nmetrics, "interval");
	return n;
}

static const struct bp_warning *warning(const struct bp_result *r, const char *code)
{
	for (size_t i = 0; i < r->nwarnings; i++)
		if (!strcmp(r->warnings[i].code, code))
			return &r->warnings[i];
	return NULL;
}

static double metric(const struct bp_metric *m, size_t n, const char *name)
{
	const struct bp_metric *x = find(m, n, name);

	return x ? x->value : -1;
}

static struct bp_result *report(const struct bp_net_params *np, struct bp_stream_outcome *out)
{
	struct bp_result *r = bp_result_new(np->test);

	bp_result_set_params(r, json_object());
	CHECK_INT(bp_stream_report(r, np, out), 0);
	return r;
}

static struct bp_net_params params(const char *test, bool reverse)
{
	struct bp_net_params np = { .parallel = 1, .reverse = reverse, .bp_version = 1,
				    .time_ns = 3000000000ULL, .interval_ns = 1000000000ULL };

	bp_net_params_set_test(&np, test);
	return np;
}

/*
 * The busy run of issue 15: the server's marks came late, its interval 2 ended at 2.5 s and
 * its last at 4.13 s; the client's interval 2.00-3.00 moved 778 MB. The rate of that interval
 * on the receiver's side is 778 MB over the 2.13 s the receiver counted it in, and the
 * interval says so; the totals (equal bytes, 3 s against 4.13 s) are named as disagreeing.
 */
static void test_spans_differ(void)
{
	struct bp_net_params np = params("tcp", false);
	struct bp_stream_outcome out = { .local = side(), .remote = side() };
	struct bp_result *r;
	const struct bp_interval *iv;
	const struct bp_warning *w;

	add_stream(out.local, 1, true, 2778000000ULL, 0, 3.0);
	add_stream(out.remote, 1, false, 2778000000ULL, 0, 4.13);
	add_iv(out.local, true, 1000000000, 0, 1);
	add_iv(out.local, true, 1000000000, 1, 2);
	add_iv(out.local, true, 778000000, 2, 3);
	add_iv(out.remote, false, 1000000000, 0, 1);
	add_iv(out.remote, false, 1000000000, 1, 2);
	add_iv(out.remote, false, 500000000, 2, 2.5);
	add_iv(out.remote, false, 278000000, 2.5, 4.13);
	r = report(&np, &out);
	CHECK_INT(check_all_rates(r), 2 + 3 * 2);
	CHECK_INT(r->nintervals, 3);
	iv = &r->intervals[2];
	CHECK_NEAR(iv->start, 2, 0);
	CHECK_NEAR(iv->end, 3, 0);
	CHECK_NEAR(metric(iv->metrics, iv->nmetrics, "receiver.bytes"), 778e6, 0);
	CHECK_NEAR(metric(iv->metrics, iv->nmetrics, "receiver.span"), 2.13e9, 1);
	CHECK_NEAR(metric(iv->metrics, iv->nmetrics, "receiver.bitrate"), 778e6 * 8 / 2.13, 1);
	CHECK_NEAR(metric(iv->metrics, iv->nmetrics, "sender.span"), 1e9, 1);
	CHECK_NEAR(metric(iv->metrics, iv->nmetrics, "sender.bitrate"), 778e6 * 8, 1);
	CHECK_NEAR(metric(r->metrics, r->nmetrics, "sender.span"), 3e9, 1);
	CHECK_NEAR(metric(r->metrics, r->nmetrics, "receiver.span"), 4.13e9, 1);
	w = warning(r, "spans-differ");
	CHECK(w != NULL);
	if (w) {
		CHECK(strstr(w->message, "sender counted over 3.000 s and the receiver over "
				      "4.130 s (1130 ms apart") != NULL);
		CHECK(strstr(w->message, "1 of 3 intervals (the most, 1130 ms, in 2.00-3.00 s)"));
		printf("# %s\n", w->message);
	}
	w = warning(r, "sides-disagree");
	CHECK(w != NULL);
	if (w) {
		CHECK(strstr(w->message, "sender counted 2778.0 MB in 3.000 s (7.41 Gbit/s), the "
				      "receiver 2778.0 MB in 4.130 s (5.38 Gbit/s): 27.4 % apart"));
		CHECK(strstr(w->message, "spans differ") != NULL);
		printf("# %s\n", w->message);
	}
	bp_result_free(r);
	bp_stream_outcome_free(&out);
}

/* Spans a few ms apart and rates within 1 %: no warning, and every rate checks out. */
static void test_agree(void)
{
	struct bp_net_params np = params("tcp", false);
	struct bp_stream_outcome out = { .local = side(), .remote = side() };
	struct bp_result *r;

	add_stream(out.local, 1, true, 3000000000ULL, 0, 3.0);
	add_stream(out.remote, 1, false, 3010000000ULL, 0, 3.004);
	for (int i = 0; i < 3; i++) {
		add_iv(out.local, true, 1000000000, i, i + 1);
		add_iv(out.remote, false, 1000000000 + (i == 2 ? 10000000 : 0), i + 0.0002,
		       i + 1 + (i == 2 ? 0.004 : 0.0002));
	}
	r = report(&np, &out);
	CHECK_INT(check_all_rates(r), 2 + 3 * 2);
	CHECK_INT(r->nwarnings, 0);
	CHECK_STR(json_string_value(json_object_get(r->params, "sender_counts")), "acked");
	bp_result_free(r);
	bp_stream_outcome_free(&out);
}

/*
 * -R against a stock iperf3 server: it counts what it wrote, 10 % above what arrived over
 * the same span; the warning says so, params.sender_counts is "written".
 */
static void test_iperf3_sender(void)
{
	struct bp_net_params np = params("tcp", true);
	struct bp_stream_outcome out = { .local = side(), .remote = side() };
	struct bp_result *r;
	const struct bp_warning *w;

	out.remote->from_iperf3 = true;
	out.remote->sent_counts[0] = '\0';
	add_stream(out.local, 1, false, 1000000000ULL, 0, 1.0);
	add_stream(out.remote, 1, true, 1100000000ULL, 0, 1.0);
	add_iv(out.local, false, 1000000000, 0, 1);
	r = report(&np, &out);
	/* a stock iperf3 sends no intervals: the interval has the receiver's figures only */
	CHECK_INT(check_all_rates(r), 2 + 1);
	w = warning(r, "sides-disagree");
	CHECK(w && strstr(w->message, "stock iperf3") && strstr(w->message, "9.1 % apart"));
	CHECK(warning(r, "spans-differ") == NULL);
	CHECK_STR(json_string_value(json_object_get(r->params, "sender_counts")), "written");
	bp_result_free(r);
	bp_stream_outcome_free(&out);
}

/* UDP loses datagrams: its rates differ by the loss, which is no disagreement of the ends. */
static void test_udp_loss(void)
{
	struct bp_net_params np = params("udp", false);
	struct bp_stream_outcome out = { .local = side(), .remote = side() };
	struct bp_result *r;

	out.local->sent_counts[0] = out.remote->sent_counts[0] = '\0';
	add_stream(out.local, 1, true, 1000000000ULL, 0, 2.0);
	add_stream(out.remote, 1, false, 800000000ULL, 0, 2.001);
	out.local->streams[0].packets = 1000000;
	out.remote->streams[0].packets = 800000;
	out.remote->streams[0].lost = 200000;
	add_iv(out.local, true, 500000000, 0, 1);
	add_iv(out.local, true, 500000000, 1, 2);
	add_iv(out.remote, false, 400000000, 0, 1);
	add_iv(out.remote, false, 400000000, 1, 2.001);
	r = report(&np, &out);
	CHECK_INT(check_all_rates(r), 2 + 2 * 2);
	CHECK_INT(r->nwarnings, 0);
	CHECK(json_object_get(r->params, "sender_counts") == NULL);
	bp_result_free(r);
	bp_stream_outcome_free(&out);
}

/*
 * Issue 31: the server's receiver lost 2^53 of 125 datagrams sent (1e16 % loss), then
 * received 10 times the bytes sent. Each is flagged peer-figures-inconsistent and the
 * server's side of the pair left out; the honest run above warns of nothing.
 */
static void test_peer_inconsistent(void)
{
	struct bp_net_params np = params("udp", false);
	struct bp_stream_outcome out = { .local = side(), .remote = side() };
	struct bp_result *r;

	add_stream(out.local, 1, true, 125000, 0, 1.0);
	add_stream(out.remote, 1, false, 125000, 0, 1.0);
	out.local->streams[0].packets = 125;
	out.remote->streams[0].packets = 125;
	out.remote->streams[0].lost = 9007199254740992LL;
	r = report(&np, &out);
	CHECK(warning(r, "peer-figures-inconsistent") != NULL);
	CHECK(find(r->metrics, r->nmetrics, "loss.percent") == NULL);
	CHECK(find(r->metrics, r->nmetrics, "lost.packets") == NULL);
	CHECK_NEAR(metric(r->metrics, r->nmetrics, "sender.packets"), 125, 0);
	bp_result_free(r);
	/* within the slack (5 % and the spans' difference): no warning */
	out.remote->streams[0].lost = 6;
	r = report(&np, &out);
	CHECK(warning(r, "peer-figures-inconsistent") == NULL);
	CHECK_NEAR(metric(r->metrics, r->nmetrics, "lost.packets"), 6, 0);
	bp_result_free(r);
	/* received ten times what was sent: the server's receiver figures left out */
	out.remote->streams[0].lost = 0;
	out.remote->streams[0].bytes = 1250000;
	r = report(&np, &out);
	CHECK(warning(r, "peer-figures-inconsistent") != NULL);
	CHECK(find(r->metrics, r->nmetrics, "receiver.bytes") == NULL);
	CHECK(find(r->metrics, r->nmetrics, "sender.bytes") != NULL);
	bp_result_free(r);
	bp_stream_outcome_free(&out);
}

/*
 * The emulated Orange Pi of session 14: a starved TCP sender counted what was acknowledged
 * (20.0 MB), its receiver 24.5 MB. In-flight data up to 64 MiB beyond the sender's count is
 * no contradiction; 64 MiB more than that is, and the server's receiver figures go.
 */
static void test_tcp_in_flight(void)
{
	struct bp_net_params np = params("tcp", false);
	struct bp_stream_outcome out = { .local = side(), .remote = side() };
	struct bp_result *r;

	add_stream(out.local, 1, true, 20000000, 0, 3.0);
	add_stream(out.remote, 1, false, 24500000, 0, 3.0);
	r = report(&np, &out);
	CHECK(warning(r, "peer-figures-inconsistent") == NULL);
	CHECK_NEAR(metric(r->metrics, r->nmetrics, "receiver.bytes"), 24500000, 0);
	bp_result_free(r);
	/* 20 MB + 5 % + 64 MiB is the most; 1 MB beyond it is not believed */
	out.remote->streams[0].bytes = 20000000 + 1000000 + 67108864 + 1000000;
	r = report(&np, &out);
	CHECK(warning(r, "peer-figures-inconsistent") != NULL);
	CHECK(find(r->metrics, r->nmetrics, "receiver.bytes") == NULL);
	bp_result_free(r);
	out.remote->streams[0].bytes = 20000000 + 1000000 + 67108864 - 1000000;
	r = report(&np, &out);
	CHECK(warning(r, "peer-figures-inconsistent") == NULL);
	bp_result_free(r);
	bp_stream_outcome_free(&out);
}

/*
 * A paced UDP sender that offered under 90 % of the rate asked (per stream, times the
 * streams) lost the CPU: tester-below-rate names both rates. At 95 %, or unpaced, none;
 * with -R the server's sender is held to the same.
 */
static void test_below_rate(void)
{
	struct bp_stream_outcome out = { .local = side(), .remote = side() };
	struct bp_net_params np = params("udp", false);
	const struct bp_warning *w;
	struct bp_result *r;

	out.local->sent_counts[0] = out.remote->sent_counts[0] = '\0';
	add_stream(out.local, 1, true, 125000, 0, 1.0);  /* 1 Mbit/s */
	add_stream(out.remote, 1, false, 125000, 0, 1.0);
	out.local->streams[0].packets = out.remote->streams[0].packets = 125;
	np.bandwidth = 4e6;
	r = report(&np, &out);
	w = warning(r, "tester-below-rate");
	CHECK(w != NULL);
	CHECK(w && strstr(w->message, "offered 1 Mbit/s of the 4 Mbit/s asked (25 %)"));
	bp_result_free(r);
	np.bandwidth = 1.05e6;
	r = report(&np, &out);
	CHECK(warning(r, "tester-below-rate") == NULL);
	bp_result_free(r);
	np.bandwidth = 0;
	r = report(&np, &out);
	CHECK(warning(r, "tester-below-rate") == NULL);
	bp_result_free(r);
	/* two streams at 0.6 Mbit/s each asked: 1.2 asked, 1 offered (83 %) */
	np.parallel = 2;
	np.bandwidth = 0.6e6;
	r = report(&np, &out);
	CHECK(warning(r, "tester-below-rate") != NULL);
	bp_result_free(r);
	bp_stream_outcome_free(&out);
	/* -R: the server sent */
	out = (struct bp_stream_outcome){ .local = side(), .remote = side() };
	np = params("udp", true);
	np.bandwidth = 4e6;
	out.local->sent_counts[0] = out.remote->sent_counts[0] = '\0';
	add_stream(out.remote, 1, true, 125000, 0, 1.0);
	add_stream(out.local, 1, false, 125000, 0, 1.0);
	out.local->streams[0].packets = out.remote->streams[0].packets = 125;
	r = report(&np, &out);
	CHECK(warning(r, "tester-below-rate") != NULL);
	bp_result_free(r);
	bp_stream_outcome_free(&out);
}

int main(void)
{
	install_all_kinds();  /* the parameters' shapes come from the kinds' descriptors */
	test_spans_differ();
	test_agree();
	test_iperf3_sender();
	test_udp_loss();
	test_peer_inconsistent();
	test_tcp_in_flight();
	test_below_rate();
	return tap_done();
}
