#include "suite/latency_run.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/signals.h"
#include "suite/suite.h"

const char *const bp_latency_load_names[] = { "up", "down", "bidir", NULL };

/* The seconds between two probes of one connection, at least (see bp_latency_probe_flows). */
#define PROBE_GAP_S 0.5
#define MAX_PROBE_FLOWS 64

/*
 * rr's open loop keeps one request in flight per connection: a probe due while the one
 * before still waits for its answer starts late, and its latency (counted from its due
 * time) then holds that wait too. Under load a round trip grows by the queue's delay, so
 * each connection gets PROBE_GAP_S between its probes, more than any queue this command
 * expects to meet (a 20 Mbit/s link with 1 MB of buffer holds 0.4 s); a longer one shows up
 * as rr's late count. --rate is at most MAX_PROBE_FLOWS / PROBE_GAP_S (the option's range).
 */
int bp_latency_probe_flows(double rate)
{
	double n = ceil(rate * PROBE_GAP_S);

	return n < 1 ? 1 : n > MAX_PROBE_FLOWS ? MAX_PROBE_FLOWS : (int)n;
}

/* A child's command line: words kept here, argv pointing at them. A word is at most a
 * path (--psk) or a host name; one that does not fit is refused, never cut. */
#define MAX_WORDS 40
#define MAX_WORD 4096
struct cmdline {
	char words[MAX_WORDS][MAX_WORD];
	const char *argv[MAX_WORDS + 1];
	int n;
	bool too_long;
};

static void word(struct cmdline *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void word(struct cmdline *c, const char *fmt, ...)
{
	va_list ap;

	if (c->n == MAX_WORDS)  /* the lines below have at most 30 words */
		return;
	va_start(ap, fmt);
	if (vsnprintf(c->words[c->n], sizeof(c->words[c->n]), fmt, ap) >= MAX_WORD)
		c->too_long = true;
	va_end(ap);
	c->argv[c->n] = c->words[c->n];
	c->argv[++c->n] = NULL;
}

static double secs(uint64_t ns)
{
	return (double)ns / 1e9;
}

/* What every child takes from the plan: the peer, its family, timeouts and key. */
static void common_words(struct cmdline *c, const struct bp_latency_plan *p, uint64_t time_ns,
			 uint64_t omit_ns)
{
	word(c, "-c");
	word(c, "%s", p->host);
	word(c, "-p");
	word(c, "%lld", (long long)p->port);
	word(c, "-t");
	word(c, "%.9g", secs(time_ns));
	word(c, "-O");
	word(c, "%.9g", secs(omit_ns));
	word(c, "--connect-timeout");
	word(c, "%.9g", secs(p->connect_timeout_ns));
	word(c, "--idle-timeout");
	word(c, "%.9g", secs(p->idle_timeout_ns));
	if (p->v4)
		word(c, "-4");
	if (p->v6)
		word(c, "-6");
	if (p->psk_file) {
		word(c, "--psk");
		word(c, "%s", p->psk_file);
	}
}

static void probe_line(struct cmdline *c, const struct bp_latency_plan *p, bool udp,
		       uint64_t time_ns, uint64_t omit_ns)
{
	memset(c, 0, sizeof(*c));
	word(c, "rr");
	common_words(c, p, time_ns, omit_ns);
	word(c, "--rate");
	word(c, "%.9g", p->rate);
	word(c, "-P");
	word(c, "%d", bp_latency_probe_flows(p->rate));
	if (udp)
		word(c, "--udp");
}

static void load_line(struct cmdline *c, const struct bp_latency_plan *p)
{
	memset(c, 0, sizeof(*c));
	word(c, "tcp");
	common_words(c, p, p->time_ns, p->omit_ns);
	word(c, "-P");
	word(c, "%lld", (long long)p->parallel);
	if (p->load == BP_LATENCY_DOWN)
		word(c, "-R");
	else if (p->load == BP_LATENCY_BIDIR)
		word(c, "--bidir");
	if (p->congestion) {
		word(c, "-C");
		word(c, "%s", p->congestion);
	}
}

/* One child: its command, parameters, result and outcome; run on a thread of its own. */
struct child {
	const struct bp_test *t;
	void *params;
	struct bp_common_opts common;
	struct bp_parsed parsed;
	struct bp_test_ctx ctx;
	struct bp_result *r;
	pthread_t thread;
	bool started;
	int rc;
	char err[512];
};

static int child_prepare(struct child *k, const struct cmdline *c, const char *phase,
			 const char *role, const struct bp_test_ctx *ctx)
{
	memset(k, 0, sizeof(*k));
	if (c->too_long) {
		snprintf(k->err, sizeof(k->err), "an argument is longer than %d bytes", MAX_WORD - 1);
		return -EINVAL;
	}
	k->t = ctx->find ? ctx->find(c->argv[0]) : NULL;
	if (!k->t) {
		snprintf(k->err, sizeof(k->err), "latency needs the %s command", c->argv[0]);
		return -EINVAL;
	}
	k->rc = bp_suite_parse_child(k->t, c->argv, &k->params, &k->common, &k->parsed,
				     k->err, sizeof(k->err));
	if (k->rc)
		return k->rc;
	k->r = bp_result_new(k->t->name);
	if (!k->r)
		return -ENOMEM;
	bp_result_set_params(k->r, bp_opts_to_json(k->t->opts, k->params));
	json_object_set_new(k->r->params, "phase", json_string(phase));
	json_object_set_new(k->r->params, "role", json_string(role));
	k->ctx = *ctx;
	k->ctx.common = &k->common;
	k->ctx.parsed = &k->parsed;
	k->ctx.live = NULL;  /* the children's intervals are in their results, not on screen */
	return 0;
}

static void *child_main(void *arg)
{
	struct child *k = arg;

	k->rc = k->t->run(k->params, &k->ctx, k->r, k->err, sizeof(k->err));
	return NULL;
}

/*
 * Start every child at once and wait for all of them: the loaded phase's probes and load
 * begin together, so their counted spans (after the same -O) cover the same seconds.
 */
static void run_together(struct child *kids, int n)
{
	for (int i = 0; i < n; i++) {
		kids[i].started = !pthread_create(&kids[i].thread, NULL, child_main, &kids[i]);
		if (!kids[i].started) {
			kids[i].rc = -EAGAIN;
			snprintf(kids[i].err, sizeof(kids[i].err), "could not start a thread for %s",
				 kids[i].t->name);
		}
	}
	for (int i = 0; i < n; i++)
		if (kids[i].started)
			pthread_join(kids[i].thread, NULL);
}

/*
 * Hand each child's result to the parent, as a suite does: a failed child keeps what it
 * measured and carries its error; the parent names it. The first failure is the phase's.
 */
static int adopt(struct bp_result *r, struct child *kids, int n, char *err, size_t errlen)
{
	int rc = 0;

	for (int i = 0; i < n; i++) {
		struct child *k = &kids[i];

		if (k->rc && k->r) {
			if (!k->r->error.code)
				bp_result_set_error(k->r, bp_error_code(k->rc), "%s",
						    k->err[0] ? k->err : strerror(-k->rc));
			bp_result_add_warning(r, "child-failed", "%s: %s", k->t->name, k->err);
		}
		if (k->rc && !rc) {
			rc = k->rc;
			snprintf(err, errlen, "%s", k->err[0] ? k->err : strerror(-k->rc));
		}
		if (k->r && bp_result_add_child(r, k->r) && !rc)
			rc = -ENOMEM;
		k->r = NULL;
		free(k->params);
		k->params = NULL;
	}
	return rc;
}

static int phase(const struct bp_latency_plan *p, const struct bp_test_ctx *ctx,
		 struct bp_result *r, bool loaded, char *err, size_t errlen)
{
	struct child kids[3];
	struct cmdline *lines = calloc(3, sizeof(*lines));
	const char *name = loaded ? "loaded" : "idle";
	/*
	 * Both phases leave their first -O out: under load the queue fills meanwhile, and idle
	 * the probes' own start (connections opened beside the other protocol's, threads
	 * starting) made the first second's late probes read up to 150 ms on loopback.
	 */
	uint64_t t = loaded ? p->time_ns : p->idle_ns, omit = p->omit_ns;
	int n = 0, rc = 0;

	if (!lines)
		return -ENOMEM;
	if (p->tcp)
		probe_line(&lines[n++], p, false, t, omit);
	if (p->udp)
		probe_line(&lines[n++], p, true, t, omit);
	if (loaded)
		load_line(&lines[n++], p);
	for (int i = 0; i < n; i++) {
		int krc = child_prepare(&kids[i], &lines[i], name,
					loaded && i == n - 1 ? "load" : "probe", ctx);

		if (krc && !rc) {
			rc = krc;
			snprintf(err, errlen, "%s", kids[i].err[0] ? kids[i].err : strerror(-krc));
		}
	}
	if (!rc) {
		bp_info("latency: %s phase, %.1f s", name, secs(t + omit));
		run_together(kids, n);
	}
	for (int i = 0; rc && i < n; i++) {  /* none ran: nothing to adopt */
		bp_result_free(kids[i].r);
		free(kids[i].params);
		kids[i].r = NULL;
		kids[i].params = NULL;
	}
	if (!rc)
		rc = adopt(r, kids, n, err, errlen);
	free(lines);
	return rc;
}

int bp_latency_run(const struct bp_latency_plan *p, const struct bp_test_ctx *ctx,
		   struct bp_result *r, char *err, size_t errlen)
{
	int rc = phase(p, ctx, r, false, err, errlen);

	/* A stopped or failed idle phase leaves nothing to compare a loaded one with. */
	if (!rc && !bp_stop_requested())
		rc = phase(p, ctx, r, true, err, errlen);
	return rc;
}
