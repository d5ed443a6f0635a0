/*
 * `boardperf rfc2544 -c HOST`: RFC 2544 §26.1 throughput (the highest zero-loss rate per
 * frame size, by binary search) and §26.3 frame loss rate, each trial a `boardperf udp` run
 * at a fixed offered rate. A trial that the tester could not offer at its target rate, or
 * whose loss happened in the tester's own socket buffer, is named as the tester's limit.
 * When the tester's own egress is the narrowest point (its send queue refuses what its link
 * cannot carry), the rate it carried without loss is the answer, and the result says so.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/checks.h"
#include "core/buildinfo.h"
#include "core/clock.h"
#include "core/log.h"
#include "core/signals.h"
#include "core/starve.h"
#include "core/test.h"
#include "core/units.h"
#include "io/frame.h"
#include "io/sock.h"
#include "io/udp_header.h"
#include "proto/auth_psk.h"
#include "proto/control.h"
#include "result/result.h"
#include "result/result_this_host.h"
#include "result/result_verdict.h"
#include "rfc2544/rfc2544_metrics.h"
#include "rfc2544/rfc2544_search.h"
#include "stream/stream_client.h"
#include "side/udp_stream.h"

struct rfc_params {
	const char *host;
	int64_t port;
	const char *sizes;
	uint64_t trial;
	bool rfc;
	double loss;
	double max;
	double resolution;
	double min_percent;   /* --min-percent; verdict: whether it was given */
	bool verdict;
	int test;
	int engine;           /* enum bp_udp_engine */
	bool v4, v6;
	const char *psk_file;
	struct bp_psk psk;    /* read from psk_file by rfc_check */
	unsigned frames[16];  /* resolved by rfc_check */
	int nframes;
};

static const char *const tests[] = { "throughput", "loss", NULL };

static const struct bp_opt rfc_opts[] = {
	{ 'c', "client", BP_OPT_STRING, offsetof(struct rfc_params, host), "HOST", NULL, 0, 0,
	  NULL, "the boardperf server on the far side of the device under test (required)" },
	{ 'p', "port", BP_OPT_INT, offsetof(struct rfc_params, port), "PORT", "5201", 1, 65535,
	  NULL, "server port" },
	{ 0, "sizes", BP_OPT_STRING, offsetof(struct rfc_params, sizes), "LIST",
	  "64,128,256,512,1024,1280,1518", 0, 0, NULL, "Ethernet frame sizes with FCS" },
	{ 0, "trial", BP_OPT_DURATION, offsetof(struct rfc_params, trial), "S", "2", 0.2, 3600,
	  NULL, "seconds per trial (the RFC asks for 60: --rfc)" },
	{ 0, "rfc", BP_OPT_FLAG, offsetof(struct rfc_params, rfc), NULL, NULL, 0, 0, NULL,
	  "60 s trials, as RFC 2544 §26.1 asks" },
	{ 0, "loss", BP_OPT_NUMBER, offsetof(struct rfc_params, loss), "PCT", "0", 0, 100, NULL,
	  "loss a passing trial may have (0: zero loss, as the RFC)" },
	{ 0, "max", BP_OPT_RATE, offsetof(struct rfc_params, max), "RATE", "0", 0, 1e12, NULL,
	  "the medium's bit rate (e.g. 100M, 1G): the search's upper end "
	  "(default: the link speed of the interface toward HOST)" },
	{ 0, "resolution", BP_OPT_NUMBER, offsetof(struct rfc_params, resolution), "PCT", "1",
	  0.01, 50, NULL, "stop the search when the bracket is this % of the rate found" },
	{ 0, "min-percent", BP_OPT_NUMBER, offsetof(struct rfc_params, min_percent), "PCT", NULL,
	  0.01, 100, NULL, "a verdict: PASS when every frame size's zero-loss rate is at least PCT "
	  "% of the medium's (100: line rate), else FAIL, exit status 3" },
	{ 0, "test", BP_OPT_CHOICE, offsetof(struct rfc_params, test), "KIND", "throughput", 0, 0,
	  tests, "throughput (§26.1) or loss (§26.3: frame loss rate from 100 % down)" },
	{ 0, "engine", BP_OPT_CHOICE, offsetof(struct rfc_params, engine), "ENGINE", "socket", 0,
	  0, bp_udp_engine_names, "the trials' sender: " BP_UDP_ENGINE_HELP },
	{ '4', "version4", BP_OPT_FLAG, offsetof(struct rfc_params, v4), NULL, NULL, 0, 0, NULL,
	  "IPv4 only" },
	{ '6', "version6", BP_OPT_FLAG, offsetof(struct rfc_params, v6), NULL, NULL, 0, 0, NULL,
	  "IPv6 only" },
	{ 0, "psk", BP_OPT_STRING, offsetof(struct rfc_params, psk_file), "FILE", NULL, 0, 0, NULL,
	  "prove the pre-shared key in FILE to a locked server (serve --psk), every trial" },
	BP_OPT_END,
};

static int parse_sizes(struct rfc_params *p, char *err, size_t errlen)
{
	char *copy = strdup(p->sizes), *save = NULL;
	int rc = copy ? 0 : -ENOMEM;

	p->nframes = 0;
	for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t && !rc;
	     t = strtok_r(NULL, ",", &save)) {
		int64_t v;
		size_t payload;

		if (bp_parse_int(t, &v) || v < 64 || v > 9216 || p->nframes == 16)
			rc = -EINVAL;
		else
			rc = bp_frame_payload((unsigned)v, p->v6 ? 6 : 4, BP_UDP_IPERF_MIN_LEN, 0,
					      &payload, err, errlen);
		if (!rc)
			p->frames[p->nframes++] = (unsigned)v;
		else if (!err[0] || rc == -EINVAL)
			snprintf(err, errlen, "--sizes '%s': expected frame sizes such as "
				 "64,128,1518 (64 to 1518 bytes with FCS)", t);
	}
	free(copy);
	return rc ? -EINVAL : 0;
}

static int rfc_check(void *params, const struct bp_parsed *parsed, char *err, size_t errlen)
{
	struct rfc_params *p = params;

	err[0] = '\0';
	p->verdict = bp_parsed_given(parsed, "min-percent");
	if (p->verdict && p->test) {
		snprintf(err, errlen, "--min-percent %g with --test loss: the verdict is on the "
			 "throughput test's zero-loss rates", p->min_percent);
		return -EINVAL;
	}
	if (bp_check_no_positional(parsed, err, errlen) ||
	    bp_check_exclusive(p->v4, "-4", p->v6, "-6", err, errlen) ||
	    (p->psk_file && bp_psk_load(p->psk_file, &p->psk, err, errlen)))
		return -EINVAL;
	if (!p->host) {
		snprintf(err, errlen, "-c HOST is required: a boardperf server behind the device");
		return -EINVAL;
	}
	if (bp_check_host("-c", p->host, "-p", err, errlen))
		return -EINVAL;
	if (p->rfc)
		p->trial = 60 * BP_NS_PER_SEC;
	return parse_sizes(p, err, errlen);
}

struct trial {
	unsigned frame;
	bool this_host;       /* the server was this machine (bp_addr_is_this_host) */
	char server[64];
	double target_fps, offered_fps;
	double carried_fps;   /* the steady rate the path took, at most what was offered */
	uint64_t sent, received, kernel_drops, stalls;
	int64_t lost;
	double loss_pct;
	bool lossless;        /* lost no more than --loss */
	bool short_offer;     /* the tester sent less than its target */
	bool rx_limited;      /* the loss happened in the receiving tester's socket buffer */
	bool passed;          /* offered in full and lossless */
	bool tester_limited;  /* the tester, not the path, set what the trial measured */
	struct bp_starve_figures starve;  /* the CPU the tester did not get in the trial */
	bool starved;
	double start_s, end_s;
	const char *engine;   /* the engine that sent: "socket" when "packet" could not run */
};

/* Intervals per trial for the steady-state rate: the first holds the start and is left out. */
#define TRIAL_INTERVALS 4

/*
 * The rate the path carried while the trial was under way: what the tester's socket got
 * accepted over its intervals after the first, which holds the start (a full tbf bucket,
 * the queue filling). While a saturated egress holds a full queue it accepts a datagram
 * only as it sends one, so this is the egress's own rate, timed by the sender's clock
 * alone. Sent over the whole span would also count the queue left at the end (with a
 * 50 ms tbf queue, 5 % of a 1 s trial); received over the receiver's span, whose end waits
 * for the client's end of test and the server's scheduling, reads low on a busy machine.
 * 0 when the trial had no such interval.
 */
static double steady_fps(const struct bp_net_results *local, double interval_s)
{
	uint64_t sent = 0;
	double span = 0;

	for (int i = 1; i < local->nintervals; i++) {
		const struct bp_net_interval *iv = &local->intervals[i];
		double d = iv->end_s - iv->start_s;

		/* A partial last interval holds the stop. */
		if (d < 0.9 * interval_s)
			continue;
		sent += iv->packets_sent;
		span += d;
	}
	return span > 0 ? (double)sent / span : 0;
}

/* Judges a trial from what both ends counted. */
static void judge_trial(const struct rfc_params *p, const struct bp_stream_outcome *out,
			struct trial *t)
{
	double secs = bp_net_results_seconds(out->local, true);
	double rsecs = bp_net_results_seconds(out->remote, false);
	double steady = steady_fps(out->local, (double)p->trial / 1e9 / TRIAL_INTERVALS);

	t->engine = bp_udp_engine_of_mode(out->local->send_mode);
	t->sent = bp_net_results_packets(out->local, true);
	t->offered_fps = secs > 0 ? (double)t->sent / secs : 0;
	t->stalls = bp_net_results_stalls(out->local);
	t->received = bp_net_results_packets(out->remote, false);
	t->lost = bp_net_results_lost(out->remote);
	t->kernel_drops = bp_net_results_kernel_drops(out->remote);
	t->carried_fps = steady > 0 ? steady : rsecs > 0 ? (double)t->received / rsecs : 0;
	if (t->carried_fps > t->offered_fps)
		t->carried_fps = t->offered_fps;
	t->loss_pct = t->sent ? (double)t->lost / (double)t->sent * 100 : 100;
	t->lossless = t->sent > 0 && t->loss_pct <= p->loss;
	t->short_offer = t->offered_fps < BP_SEARCH_OFFERED_SHARE * t->target_fps;
	t->rx_limited = t->lost > 0 && (uint64_t)t->lost <= t->kernel_drops;
	/* A rate the tester could not offer proves nothing about the device, nor does loss
	 * while other load kept the tester off the CPU (a sender woken late sends in bursts). */
	t->tester_limited = t->short_offer || t->rx_limited || (t->starved && !t->lossless);
	t->passed = !t->short_offer && t->lossless;
}

/* One trial: a UDP test at a fixed frame rate, judged on its loss and its offered rate. */
static int run_trial(const struct rfc_params *p, unsigned frame, double fps, uint64_t t0,
		     struct trial *t, char *err, size_t errlen)
{
	struct bp_stream_client_opts o = {
		.host = p->host, .port = (unsigned)p->port, .connect_timeout_ns = 3 * BP_NS_PER_SEC,
		.family = p->v4 ? BP_FAMILY_V4 : p->v6 ? BP_FAMILY_V6 : BP_FAMILY_ANY,
		.psk = p->psk_file ? &p->psk : NULL,
	};
	struct bp_net_params *np = &o.np;
	struct bp_stream_outcome out;
	struct bp_starve_snap s0;
	size_t payload;
	int rc;

	bp_frame_payload(frame, p->v6 ? 6 : 4, BP_UDP_IPERF_MIN_LEN, 0, &payload, err, errlen);
	bp_net_params_set_test(np, "udp");
	np->bp_version = BP_PROTO_VERSION;
	np->time_ns = p->trial;
	np->interval_ns = p->trial / TRIAL_INTERVALS;
	np->parallel = 1;
	np->len = (int)payload;
	np->bandwidth = fps * (double)payload * 8;  /* -b counts payload bits */
	np->window = 8 << 20;
	np->udp64 = true;
	np->packet_engine = p->engine == BP_UDP_ENGINE_PACKET;
	snprintf(np->client_version, sizeof(np->client_version), "boardperf %s", bp_version());
	*t = (struct trial){ .frame = frame, .target_fps = fps,
			     .start_s = (double)(bp_now_ns() - t0) / 1e9 };
	bp_starve_snap_take(&s0);
	rc = bp_stream_client_run(&o, &out, err, errlen);
	bp_starve_since(&s0, &t->starve);
	t->starved = bp_starve_judge(&t->starve, NULL, 0);
	t->end_s = (double)(bp_now_ns() - t0) / 1e9;
	if (!rc)
		judge_trial(p, &out, t);
	t->this_host = out.this_host;
	snprintf(t->server, sizeof(t->server), "%s", out.server_addr);
	bp_stream_outcome_free(&out);
	return rc;
}

static void record_trial(struct bp_result *r, const struct trial *t)
{
	struct bp_interval *iv = bp_result_add_interval(r, t->start_s, t->end_s);

	if (t->this_host)
		bp_result_warn_this_host(r, t->server);
	if (!iv)
		return;
	bp_interval_add_metric(iv, "frame", t->frame, "B", BP_BETTER_NONE);
	bp_interval_add_metric(iv, "target.fps", t->target_fps, "pkt/s", BP_BETTER_NONE);
	bp_interval_add_metric(iv, "offered.fps", t->offered_fps, "pkt/s", BP_BETTER_NONE);
	bp_interval_add_metric(iv, "carried.fps", t->carried_fps, "pkt/s", BP_BETTER_NONE);
	bp_interval_add_metric(iv, "loss.percent", t->loss_pct, "percent", BP_BETTER_LOWER);
	bp_interval_add_metric(iv, "passed", t->passed, "count", BP_BETTER_NONE);
	if (isfinite(t->starve.wait_percent)) {
		bp_interval_add_metric(iv, "runqueue_wait.percent", t->starve.wait_percent,
				       "percent", BP_BETTER_LOWER);
		bp_interval_add_metric(iv, "starved.percent", t->starve.starved_percent,
				       "percent", BP_BETTER_LOWER);
	}
	bp_info("frame %u B at %.0f frames/s: offered %.0f, carried %.0f, lost %" PRId64 " of %"
		PRIu64 " (%.3f %%), sends refused %" PRIu64 "%s: %s", t->frame, t->target_fps,
		t->offered_fps, t->carried_fps, t->lost, t->sent, t->loss_pct, t->stalls,
		t->starved ? " [tester starved]" : t->tester_limited ?
		" [tester's limit]" : "", t->passed ? "pass" :
		t->short_offer && t->lossless ? "the path carried what was offered" : "fail");
}

static int add_frame_metric(struct bp_result *r, unsigned frame, const char *what, double v,
			    const char *unit, enum bp_better better)
{
	char name[64];

	snprintf(name, sizeof(name), "frame%u.%s", frame, what);
	return bp_result_add_metric(r, name, v, unit, better);
}

struct run {
	const struct rfc_params *p;
	double max;           /* the medium's bit rate: --max, or the NIC's link speed */
	char ifname[64];      /* the interface toward HOST ("" when --max named the medium) */
	struct bp_result *r;
	uint64_t t0;
	int tester_limited;   /* frame sizes whose answer is the tester's limit */
	int negress;          /* frame sizes whose answer is what the tester's egress carried */
	unsigned egress_frame[16];
	double egress_fps[16];
	const char *engine;   /* the last trial's engine */
};

/*
 * Hands a trial to the search. A trial the tester could not offer in full tells the search
 * what the path carried instead: without loss that rate passed (and the tester's send path
 * offers no more), with loss it failed. Returns true for a short trial without loss whose
 * sends the tester's own queue refused (its egress, not its CPU, set the rate).
 */
static bool search_record(struct bp_search *s, const struct trial *t)
{
	if (!t->short_offer) {
		bp_search_record(s, t->target_fps, t->passed);
		/* What the device forwarded while overloaded: the next trial goes just below. */
		if (!t->passed && t->sent > 0)
			bp_search_note_delivered(s, t->target_fps, t->offered_fps *
						 (double)t->received / (double)t->sent);
		return false;
	}
	bp_search_record_short(s, t->target_fps, t->lossless ? t->carried_fps : t->offered_fps,
			       t->lossless);
	return t->lossless && t->stalls > 0;
}

/* The answer was bounded by the tester's send path: by its egress queue, or by its CPU. */
static void note_tester_bound(struct run *run, unsigned frame, const struct bp_search *s,
			      bool egress_refused)
{
	if (!bp_search_egress_bound(s))
		return;
	if (!egress_refused) {
		run->tester_limited++;
		return;
	}
	run->egress_frame[run->negress] = frame;
	run->egress_fps[run->negress++] = s->egress;
	add_frame_metric(run->r, frame, "tester_egress.fps", s->egress, "pkt/s",
			 BP_BETTER_NONE);
}

/* §26.1: binary search for the highest rate that passes. */
static int throughput(struct run *run, unsigned frame, char *err, size_t errlen)
{
	double max_fps = bp_frame_max_fps(run->max, frame);
	struct bp_search s;
	struct trial t;
	bool rx_limited = false, egress_refused = false;
	double fps, best;
	int rc = 0;

	/* --resolution is a share of the rate found, not of the maximum: a path far below
	 * the medium's rate (a tester's 100 Mbit/s NIC, read as 10 Gbit/s) is still found. */
	bp_search_init(&s, max_fps, run->p->resolution / 100);
	while (!rc && !bp_stop_requested() && (fps = bp_search_next(&s)) > 0) {
		rc = run_trial(run->p, frame, fps, run->t0, &t, err, errlen);
		if (rc)
			break;
		record_trial(run->r, &t);
		run->engine = t.engine;
		rx_limited |= !t.passed && t.rx_limited;
		egress_refused |= search_record(&s, &t);
	}
	best = bp_search_result(&s);
	add_frame_metric(run->r, frame, "zero_loss.fps", best, "pkt/s", BP_BETTER_HIGHER);
	add_frame_metric(run->r, frame, "zero_loss.bitrate", bp_frame_bps(best, frame), "bit/s",
			 BP_BETTER_HIGHER);
	add_frame_metric(run->r, frame, "zero_loss.percent_of_max", best / max_fps * 100,
			 "percent", BP_BETTER_HIGHER);
	add_frame_metric(run->r, frame, "trials", s.trials, "count", BP_BETTER_NONE);
	run->tester_limited += rx_limited;
	note_tester_bound(run, frame, &s, egress_refused);
	return rc;
}

/* §26.3: frame loss rate from 100 % of the maximum down in 10 % steps, until two trials in
 * a row lose nothing. */
static int frame_loss(struct run *run, unsigned frame, char *err, size_t errlen)
{
	double max_fps = bp_frame_max_fps(run->max, frame);
	int clean = 0, rc = 0;
	struct trial t;
	char what[32];

	for (int pct = 100; pct > 0 && clean < 2 && !rc && !bp_stop_requested(); pct -= 10) {
		rc = run_trial(run->p, frame, max_fps * pct / 100, run->t0, &t, err, errlen);
		if (rc)
			break;
		record_trial(run->r, &t);
		run->engine = t.engine;
		clean = t.lost == 0 ? clean + 1 : 0;
		run->tester_limited += t.tester_limited;
		snprintf(what, sizeof(what), "loss_at_%d.percent", pct);
		add_frame_metric(run->r, frame, what, t.loss_pct, "percent", BP_BETTER_LOWER);
	}
	return rc;
}

/* --max, or the link speed of the interface the kernel would use toward HOST. */
static int medium_rate(const struct rfc_params *p, double *bps, char *ifname, size_t iflen,
		       char *err, size_t errlen)
{
	struct bp_addr a;
	int rc;

	if (p->max > 0) {
		*bps = p->max;
		return 0;
	}
	rc = bp_resolve(p->host, (unsigned)p->port, p->v4 ? BP_FAMILY_V4 : p->v6 ?
			BP_FAMILY_V6 : BP_FAMILY_ANY, false, &a, err, errlen);
	if (!rc && bp_link_speed_toward(&a, bps, ifname, iflen))
		rc = -EINVAL;
	if (rc == -EINVAL)
		snprintf(err, errlen, "the link speed toward %s (interface %s) is unknown: give "
			 "the medium's rate with --max, e.g. --max 1G", p->host,
			 ifname[0] ? ifname : "unknown");
	return rc;
}

/* Names what the tester's own egress carried, per frame size, and the interface it is. */
static void egress_warning(const struct run *run)
{
	char list[1024] = "", where[128] = "", rate[32], speed[32];
	size_t n = 0;

	for (int i = 0; i < run->negress && n < sizeof(list); i++) {
		int k = snprintf(list + n, sizeof(list) - n, "%s%.0f frames/s of %u B (%s)",
				 i ? ", " : "", run->egress_fps[i], run->egress_frame[i],
				 bp_format_rate(rate, sizeof(rate),
						bp_frame_bps(run->egress_fps[i],
							     run->egress_frame[i])));

		n += k > 0 ? (size_t)k : 0;
	}
	if (run->ifname[0])
		snprintf(where, sizeof(where), " (interface %s, whose link speed reads %s)",
			 run->ifname, bp_format_rate(speed, sizeof(speed), run->max));
	bp_result_add_warning(run->r, "tester-egress-limited",
			      "the tester's own egress%s is the narrowest point: its send queue "
			      "refused what it could not carry, and it carried %s without loss; "
			      "the zero-loss rate%s found %s that limit, not the device's",
			      where, list, run->negress == 1 ? "" : "s",
			      run->negress == 1 ? "is" : "are");
}

/* --min-percent: every frame size's zero-loss rate against the threshold, as the verdict */
static void verdict(const struct run *run)
{
	char failed[256] = "", name[48];
	size_t n = 0;
	bool pass = run->p->nframes > 0;

	for (int i = 0; i < run->p->nframes; i++) {
		const struct bp_metric *m;

		snprintf(name, sizeof(name), "frame%u.zero_loss.percent_of_max", run->p->frames[i]);
		m = bp_result_find_metric(run->r, name);
		if (m && m->value >= run->p->min_percent)
			continue;
		pass = false;
		if (n < sizeof(failed))
			n += (size_t)snprintf(failed + n, sizeof(failed) - n, "%s%u B (%s)",
					      n ? ", " : "", run->p->frames[i],
					      m ? "below" : "not measured");
	}
	bp_result_set_verdict(run->r, pass, "zero-loss rate under %g %% of the medium's for %s",
			      run->p->min_percent, failed);
}

static int rfc_run(const void *params, const struct bp_test_ctx *ctx, struct bp_result *r,
		   char *err, size_t errlen)
{
	const struct rfc_params *p = params;
	struct run run = { .p = p, .r = r, .t0 = bp_now_ns() };
	int rc = 0;

	(void)ctx;
	rc = medium_rate(p, &run.max, run.ifname, sizeof(run.ifname), err, errlen);
	if (rc)
		return rc;
	json_object_set_new(r->params, "medium_bps", json_real(run.max));
	json_object_set_new(r->params, "trial_seconds", json_real((double)p->trial / 1e9));
	for (int i = 0; i < p->nframes && !rc && !bp_stop_requested(); i++)
		rc = p->test ? frame_loss(&run, p->frames[i], err, errlen) :
			       throughput(&run, p->frames[i], err, errlen);
	json_object_set_new(r->params, "engine", json_string(run.engine ? run.engine :
							       bp_udp_engine_names[p->engine]));
	if (run.tester_limited)
		bp_result_add_warning(r, "tester-limited",
				      "%d frame size%s met rates the tester itself could not "
				      "offer (its CPU) or receive (its socket buffer), or failed "
				      "trials while starved of CPU (tester-cpu-starved): those "
				      "answers are the tester's limit, not the device's",
				      run.tester_limited,
				      run.tester_limited == 1 ? "" : "s");
	if (run.negress)
		egress_warning(&run);
	if (!rc && p->verdict)
		verdict(&run);
	if (p->trial < 60 * BP_NS_PER_SEC)
		bp_result_add_warning(r, "short-trials",
				      "trials of %.1f s; RFC 2544 asks for 60 s (--rfc)",
				      (double)p->trial / 1e9);
	return rc;
}

const struct bp_test bp_cmd_rfc2544 = {
	.name = "rfc2544",
	.summary = "RFC 2544 throughput (zero-loss rate per frame size) and frame loss rate",
	.synopsis = "-c HOST [--max RATE] [--sizes LIST] [--trial S | --rfc] [--loss PCT] "
		    "[--test throughput|loss] [--engine socket|packet]",
	.opts = rfc_opts,
	.params_size = sizeof(struct rfc_params),
	.check = rfc_check,
	.run = rfc_run,
	.kind = &bp_kind_rfc2544,
};
