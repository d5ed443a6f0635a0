/*
 * `boardperf rfc2544 -c HOST`: RFC 2544 §26.1 throughput (the highest zero-loss rate per
 * frame size, by binary search) and §26.3 frame loss rate, each trial a `boardperf udp` run
 * at a fixed offered rate. A trial that the tester could not offer at its target rate, or
 * whose loss happened in the tester's own socket buffer, is named as the tester's limit.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buildinfo.h"
#include "core/clock.h"
#include "core/log.h"
#include "core/signals.h"
#include "core/starve.h"
#include "core/test.h"
#include "core/units.h"
#include "io/frame.h"
#include "proto/control.h"
#include "rfc2544/rfc2544_search.h"
#include "io/sock.h"
#include "stream/stream_client.h"
#include "proto/udp_header.h"
#include "result/result.h"

struct rfc_params {
	const char *host;
	int64_t port;
	const char *sizes;
	uint64_t trial;
	bool rfc;
	double loss;
	double max;
	double resolution;
	int test;
	bool v4, v6;
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
	  0.01, 50, NULL, "stop the search when the bracket is this % of the maximum" },
	{ 0, "test", BP_OPT_CHOICE, offsetof(struct rfc_params, test), "KIND", "throughput", 0, 0,
	  tests, "throughput (§26.1) or loss (§26.3: frame loss rate from 100 % down)" },
	{ '4', "version4", BP_OPT_FLAG, offsetof(struct rfc_params, v4), NULL, NULL, 0, 0, NULL,
	  "IPv4 only" },
	{ '6', "version6", BP_OPT_FLAG, offsetof(struct rfc_params, v6), NULL, NULL, 0, 0, NULL,
	  "IPv6 only" },
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
	if (bp_check_no_positional(parsed, err, errlen) ||
	    bp_check_exclusive(p->v4, "-4", p->v6, "-6", err, errlen))
		return -EINVAL;
	if (!p->host) {
		snprintf(err, errlen, "-c HOST is required: a boardperf server behind the device");
		return -EINVAL;
	}
	if (p->rfc)
		p->trial = 60 * BP_NS_PER_SEC;
	return parse_sizes(p, err, errlen);
}

struct trial {
	unsigned frame;
	double target_fps, offered_fps;
	uint64_t sent, received, kernel_drops, stalls;
	int64_t lost;
	double loss_pct;
	bool passed;
	bool tester_limited;  /* the tester, not the path, explains the failure */
	struct bp_starve_figures starve;  /* the CPU the tester did not get in the trial */
	bool starved;
	double start_s, end_s;
};

/* One trial: a UDP test at a fixed frame rate, judged on its loss and its offered rate. */
static int run_trial(const struct rfc_params *p, unsigned frame, double fps, uint64_t t0,
		     struct trial *t, char *err, size_t errlen)
{
	struct bp_stream_client_opts o = {
		.host = p->host, .port = (unsigned)p->port, .connect_timeout_ns = 3 * BP_NS_PER_SEC,
		.family = p->v4 ? BP_FAMILY_V4 : p->v6 ? BP_FAMILY_V6 : BP_FAMILY_ANY,
	};
	struct bp_net_params *np = &o.np;
	struct bp_stream_outcome out;
	struct bp_starve_snap s0;
	size_t payload;
	double secs;
	int rc;

	bp_frame_payload(frame, p->v6 ? 6 : 4, BP_UDP_IPERF_MIN_LEN, 0, &payload, err, errlen);
	bp_net_params_set_test(np, "udp");
	np->bp_version = BP_PROTO_VERSION;
	np->time_ns = p->trial;
	np->parallel = 1;
	np->len = (int)payload;
	np->bandwidth = fps * (double)payload * 8;  /* -b counts payload bits */
	np->window = 8 << 20;
	np->udp64 = true;
	snprintf(np->client_version, sizeof(np->client_version), "boardperf %s", bp_version());
	*t = (struct trial){ .frame = frame, .target_fps = fps,
			     .start_s = (double)(bp_now_ns() - t0) / 1e9 };
	bp_starve_snap_take(&s0);
	rc = bp_stream_client_run(&o, &out, err, errlen);
	bp_starve_since(&s0, &t->starve);
	t->starved = bp_starve_judge(&t->starve, NULL, 0);
	t->end_s = (double)(bp_now_ns() - t0) / 1e9;
	if (!rc) {
		t->sent = bp_net_results_packets(out.local, true);
		secs = bp_net_results_seconds(out.local, true);
		t->offered_fps = secs > 0 ? (double)t->sent / secs : 0;
		t->stalls = bp_net_results_stalls(out.local);
		t->received = bp_net_results_packets(out.remote, false);
		t->lost = bp_net_results_lost(out.remote);
		t->kernel_drops = bp_net_results_kernel_drops(out.remote);
		t->loss_pct = t->sent ? (double)t->lost / (double)t->sent * 100 : 100;
		/* A rate the tester could not offer proves nothing about the device, nor does
		 * loss while other load kept the tester off the CPU (late sends go in bursts). */
		t->tester_limited = t->offered_fps < 0.99 * fps ||
				    (t->lost > 0 && (uint64_t)t->lost <= t->kernel_drops) ||
				    t->starved;
		t->passed = t->offered_fps >= 0.99 * fps && t->loss_pct <= p->loss;
	}
	bp_stream_outcome_free(&out);
	return rc;
}

static void record_trial(struct bp_result *r, const struct trial *t)
{
	struct bp_interval *iv = bp_result_add_interval(r, t->start_s, t->end_s);

	if (!iv)
		return;
	bp_interval_add_metric(iv, "frame", t->frame, "B", BP_BETTER_NONE);
	bp_interval_add_metric(iv, "target.fps", t->target_fps, "pkt/s", BP_BETTER_NONE);
	bp_interval_add_metric(iv, "offered.fps", t->offered_fps, "pkt/s", BP_BETTER_NONE);
	bp_interval_add_metric(iv, "loss.percent", t->loss_pct, "percent", BP_BETTER_LOWER);
	bp_interval_add_metric(iv, "passed", t->passed, "count", BP_BETTER_NONE);
	if (isfinite(t->starve.wait_percent)) {
		bp_interval_add_metric(iv, "runqueue_wait.percent", t->starve.wait_percent,
				       "percent", BP_BETTER_LOWER);
		bp_interval_add_metric(iv, "starved.percent", t->starve.starved_percent,
				       "percent", BP_BETTER_LOWER);
	}
	bp_info("frame %u B at %.0f frames/s: offered %.0f, lost %" PRId64 " of %" PRIu64
		" (%.3f %%)%s: %s", t->frame, t->target_fps, t->offered_fps, t->lost, t->sent,
		t->loss_pct, t->starved ? " [tester starved]" : t->tester_limited ?
		" [tester's limit]" : "", t->passed ? "pass" : "fail");
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
	struct bp_result *r;
	uint64_t t0;
	int tester_limited;   /* frame sizes whose answer is the tester's limit */
};

/* §26.1: binary search for the highest rate that passes. */
static int throughput(struct run *run, unsigned frame, char *err, size_t errlen)
{
	double max_fps = bp_frame_max_fps(run->max, frame);
	struct bp_search s;
	struct trial t;
	bool limited = false;
	double fps, best;
	int rc = 0;

	bp_search_init(&s, max_fps, max_fps * run->p->resolution / 100);
	while (!rc && !bp_stop_requested() && (fps = bp_search_next(&s)) > 0) {
		rc = run_trial(run->p, frame, fps, run->t0, &t, err, errlen);
		if (rc)
			break;
		record_trial(run->r, &t);
		limited |= !t.passed && t.tester_limited;
		bp_search_record(&s, fps, t.passed);
	}
	best = bp_search_result(&s);
	add_frame_metric(run->r, frame, "zero_loss.fps", best, "pkt/s", BP_BETTER_HIGHER);
	add_frame_metric(run->r, frame, "zero_loss.bitrate", best * frame * 8, "bit/s",
			 BP_BETTER_HIGHER);
	add_frame_metric(run->r, frame, "zero_loss.percent_of_max", best / max_fps * 100,
			 "percent", BP_BETTER_HIGHER);
	add_frame_metric(run->r, frame, "trials", s.trials, "count", BP_BETTER_NONE);
	run->tester_limited += limited;
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
		clean = t.lost == 0 ? clean + 1 : 0;
		run->tester_limited += t.tester_limited;
		snprintf(what, sizeof(what), "loss_at_%d.percent", pct);
		add_frame_metric(run->r, frame, what, t.loss_pct, "percent", BP_BETTER_LOWER);
	}
	return rc;
}

/* --max, or the link speed of the interface the kernel would use toward HOST. */
static int medium_rate(const struct rfc_params *p, double *bps, char *err, size_t errlen)
{
	struct bp_addr a;
	char ifname[64] = "";
	int rc;

	if (p->max > 0) {
		*bps = p->max;
		return 0;
	}
	rc = bp_resolve(p->host, (unsigned)p->port, p->v4 ? BP_FAMILY_V4 : p->v6 ?
			BP_FAMILY_V6 : BP_FAMILY_ANY, false, &a, err, errlen);
	if (!rc && bp_link_speed_toward(&a, bps, ifname, sizeof(ifname)))
		rc = -EINVAL;
	if (rc == -EINVAL)
		snprintf(err, errlen, "the link speed toward %s (interface %s) is unknown: give "
			 "the medium's rate with --max, e.g. --max 1G", p->host,
			 ifname[0] ? ifname : "unknown");
	return rc;
}

static int rfc_run(const void *params, const struct bp_test_ctx *ctx, struct bp_result *r,
		   char *err, size_t errlen)
{
	const struct rfc_params *p = params;
	struct run run = { .p = p, .r = r, .t0 = bp_now_ns() };
	int rc = 0;

	(void)ctx;
	rc = medium_rate(p, &run.max, err, errlen);
	if (rc)
		return rc;
	json_object_set_new(r->params, "medium_bps", json_real(run.max));
	json_object_set_new(r->params, "trial_seconds", json_real((double)p->trial / 1e9));
	for (int i = 0; i < p->nframes && !rc && !bp_stop_requested(); i++)
		rc = p->test ? frame_loss(&run, p->frames[i], err, errlen) :
			       throughput(&run, p->frames[i], err, errlen);
	if (run.tester_limited)
		bp_result_add_warning(r, "tester-limited",
				      "%d frame size%s failed trials the tester itself could not "
				      "offer or receive, or ran starved of CPU (tester-cpu-starved): "
				      "those answers are the tester's limit, not the device's",
				      run.tester_limited,
				      run.tester_limited == 1 ? "" : "s");
	if (p->trial < 60 * BP_NS_PER_SEC)
		bp_result_add_warning(r, "short-trials",
				      "trials of %.1f s; RFC 2544 asks for 60 s (--rfc)",
				      (double)p->trial / 1e9);
	return rc;
}

const struct bp_test bp_cmd_rfc2544 = {
	.name = "rfc2544",
	.summary = "RFC 2544 throughput (zero-loss rate per frame size) and frame loss rate",
	.synopsis = "-c HOST --max RATE [--sizes LIST] [--trial S | --rfc] [--loss PCT] "
		    "[--test throughput|loss]",
	.opts = rfc_opts,
	.params_size = sizeof(struct rfc_params),
	.check = rfc_check,
	.run = rfc_run,
};
