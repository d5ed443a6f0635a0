#include "rr/rr_client.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "board/net_path.h"
#include "core/clock.h"
#include "core/signals.h"
#include "core/start_at.h"
#include "core/workers.h"
#include "proto/ctl_client.h"
#include "rr/rr_inflight.h"
#include "io/stream_pool.h"
#include "side/stream_side.h"
#include "proto/udp_connect.h"
#include "rr/rr_report.h"
#include "stream/iperf2_client.h"

/* The reporter's wake-ups: interval marks, and at least this often for the end checks. */
#define TICK_NS (100 * BP_NS_PER_MS)

struct client {
	const struct bp_rr_client_opts *o;
	struct bp_rr_outcome *out;
	struct bp_ctl ctl;
	struct bp_stream_pool *pool;
	struct bp_stream_side side;
	bool side_ready;
	struct bp_txn_stats *stats;      /* one per pool worker */
	int nworkers;
	struct bp_rr_flow *flows[BP_NET_MAX_STREAMS];
	int nflows;
	struct bp_conn_hists iv_h, total_h;
	uint64_t answered, answered_ns;  /* transactions done, and when that count last grew */
	char *err;
	size_t errlen;
};

static int tcp_options(int fd, void *arg, char *err, size_t errlen)
{
	(void)arg;
	/* One small request at a time: Nagle would hold it for the peer's delayed ACK. */
	return bp_sock_set_nodelay(fd, err, errlen);
}

/* The same for SCTP, which bundles small messages as Nagle does. */
static int sctp_options(int fd, void *arg, char *err, size_t errlen)
{
	const struct bp_net_params *np = arg;
	int rc = bp_sctp_set_nodelay(fd, err, errlen);

	if (!rc && np->nstreams)
		rc = bp_sctp_set_ostreams(fd, np->nstreams, err, errlen);
	return rc;
}

/* rr: the flow's connection (TCP with the cookie, or a greeted UDP socket); crr: none. */
static int flow_socket(struct client *c, int index, int *fd)
{
	const struct bp_net_params *np = &c->o->np;
	struct bp_net_params opts = *np;  /* what the options read (the hook takes void *) */
	int rc;

	*fd = -1;
	if (bp_net_params_conns_while_running(np))
		return 0;
	if (np->rr_udp)
		return bp_udp_connect(&c->ctl.addr, c->ctl.cookie, 1 << 20, bp_ctl_deadline(), fd,
				      c->err, c->errlen);
	rc = bp_stream_connect(&c->ctl.addr, np->sctp ? IPPROTO_SCTP : IPPROTO_TCP,
			       bp_now_ns() + c->o->connect_timeout_ns,
			       np->sctp ? sctp_options : tcp_options, &opts, fd, c->err,
			       c->errlen);
	if (!rc && np->iperf2)  /* a bounceback connection's first bytes are its request */
		return 0;
	if (!rc)
		rc = bp_ctl_stream_hello(&c->ctl, *fd, (uint32_t)index, bp_ctl_deadline());
	if (rc && *fd >= 0) {
		if (!c->err[0])
			snprintf(c->err, c->errlen, "data connection: %s", strerror(-rc));
		close(*fd);
		*fd = -1;
	}
	return rc;
}

static int open_flows(void *arg)
{
	struct client *c = arg;
	const struct bp_rr_client_opts *o = c->o;
	const struct bp_net_params *np = &o->np;
	int n = np->parallel, rc, id = 1;
	uint64_t period = o->rate > 0 ? (uint64_t)((double)n * 1e9 / o->rate) : 0;

	c->nworkers = bp_workers_available_cpus() < n ? bp_workers_available_cpus() : n;
	c->pool = bp_stream_pool_new(c->nworkers, c->err, c->errlen);
	c->stats = calloc((size_t)c->nworkers, sizeof(*c->stats));
	if (!c->pool || !c->stats)
		return -ENOMEM;
	for (int w = 0; w < c->nworkers; w++)
		if (bp_txn_stats_init(&c->stats[w], 0))
			return -ENOMEM;
	rc = bp_stream_side_init(&c->side, c->pool, 0);
	if (rc)
		return rc;
	c->side_ready = true;
	for (int i = 0; i < n; i++, id += id == 1 ? 2 : 1) {
		struct bp_rr_flow_cfg cfg = {
			.req_len = (size_t)np->rr_request, .resp_len = (size_t)np->rr_response,
			.udp = np->rr_udp, .crr = bp_net_params_conns_while_running(np),
			.connect_only = o->connect_only,
			/* least_loaded gives each worker one flow while there are enough */
			.alone = !period && !o->concurrent && n <= c->nworkers,
			.period_ns = period, .phase_ns = period * (uint64_t)i / (uint64_t)n,
			.ramp_ns = o->ramp_ns, .timeout_ns = o->timeout_ns, .addr = c->ctl.addr,
			.sctp = np->sctp,
			.concurrent = o->concurrent ? &c->out->cc : NULL,
			/* the cap split over the flows (each is a dispatcher on its own worker) */
			.max_inflight = c->out->inflight_cap / (size_t)n,
			.inflight = &c->out->inflight,
			.iperf2_bb = np->iperf2, .trip_times = np->trip_times,
		};
		struct bp_stream *st;
		struct bp_rr_flow *f;
		int fd;

		memcpy(cfg.cookie, c->ctl.cookie, BP_COOKIE_LEN);
		rc = flow_socket(c, i, &fd);
		if (rc)
			return rc;
		f = bp_rr_flow_new(&cfg);
		if (!f) {
			if (fd >= 0)
				close(fd);
			return -ENOMEM;
		}
		rc = bp_stream_side_add_custom(&c->side, fd, &bp_rr_flow_ops, f, true, id, &st,
					    c->err, c->errlen);
		if (rc)
			return rc;
		bp_rr_flow_set_stats(f, &c->stats[bp_stream_worker(st)]);
		c->flows[c->nflows++] = f;
	}
	return 0;
}

/* The interval just closed, to the live sink as the result will hold it (none with -i 0). */
static void emit_live(const struct client *c, const struct bp_rr_interval *v)
{
	struct bp_interval iv = { .start = v->start_s, .end = v->end_s };

	if (!c->o->live || !c->o->np.interval_ns)
		return;
	bp_rr_interval_metrics(&iv, c->o, v);
	bp_live_interval(c->o->live, c->o->live_result, &iv);
	bp_interval_clear(&iv);
}

/* Close the interval that ends at now: every worker's counts and latencies since the last. */
static void mark(struct client *c, uint64_t from, uint64_t now, bool counted)
{
	struct bp_rr_outcome *out = c->out;
	struct bp_rr_interval *iv;
	struct bp_rr_counts counts = { 0 };

	bp_conn_hists_reset(&c->iv_h);
	for (int w = 0; w < c->nworkers; w++)
		bp_txn_stats_take(&c->stats[w], &counts.txn, NULL, &c->iv_h);
	if (counted) {
		bp_txn_counts_add(&out->total.txn, &counts.txn);
		bp_conn_hists_merge(&c->total_h, &c->iv_h);
	}
	if (now <= from || out->niv == BP_NET_MAX_INTERVALS)
		return;
	iv = &out->iv[out->niv++];
	iv->start_s = (double)(from - c->side.start_ns) / 1e9;
	iv->end_s = (double)(now - c->side.start_ns) / 1e9;
	iv->omitted = !counted;
	iv->c = counts;
	bp_histo_summarize(c->iv_h.latency, &iv->latency);
	bp_histo_summarize(c->iv_h.connect, &iv->connect);
	emit_live(c, iv);
}

static bool all_flows_done(const struct client *c)
{
	return c->o->concurrent &&
	       __atomic_load_n(&c->out->cc.flows_done, __ATOMIC_RELAXED) >= c->nflows;
}

static int first_flow_error(const struct client *c)
{
	for (int i = 0; i < c->nflows; i++)
		if (bp_rr_flow_error(c->flows[i]))
			return bp_rr_flow_error(c->flows[i]);
	return 0;
}

/* The last moment any flow completed a transaction (sampled by the reporter's ticks). */
static uint64_t last_answer(struct client *c, uint64_t now)
{
	uint64_t n = 0;

	for (int i = 0; i < c->nflows; i++)
		n += bp_rr_flow_done(c->flows[i]);
	if (n != c->answered) {
		c->answered = n;
		c->answered_ns = now;
	}
	return c->answered_ns;
}

/*
 * rr: no answer for the idle timeout is a cut link or a server gone (over UDP every request
 * would just time out, one per --timeout, to the end of -t). crr counts failed connections
 * as its measurement, so it runs on.
 */
/* --idle-timeout, or the control protocol's step timeout when unset */
static uint64_t idle_ns(const struct bp_rr_client_opts *o)
{
	return o->idle_timeout_ns ? o->idle_timeout_ns : BP_CTL_STEP_TIMEOUT_NS;
}

static bool answers_stopped(struct client *c, uint64_t now)
{
	const struct bp_rr_client_opts *o = c->o;
	uint64_t idle = idle_ns(o);

	/* rr's flows only: crr's connections come and go */
	if (bp_net_params_conns_while_running(&o->np) || now - last_answer(c, now) < idle)
		return false;
	c->out->data_stopped = true;
	c->out->stopped_s = (double)(c->answered_ns - c->side.start_ns) / 1e9;
	c->out->idle_s = (double)idle / 1e9;
	snprintf(c->err, c->errlen, "no data moved after %.1f s (no answer for %g s, "
		 "--idle-timeout): the link or the server is gone", c->out->stopped_s,
		 c->out->idle_s);
	return true;
}

/*
 * crr --rate: the connections still in flight at the end keep their outcome for up to
 * --timeout (bp_txn_stats_drain_until), so that every attempt is counted once and the
 * failure ratio is over all of them (without it, the ones waiting for a SYN retransmission,
 * which mostly fail, were left out: 24 % instead of 50 % through a limit at half the rate).
 * Nothing begins meanwhile; done over the span stays what completed in it.
 */
static void drain(struct client *c, uint64_t end)
{
	uint64_t until = end + c->o->timeout_ns + 20 * BP_NS_PER_MS;

	for (int w = 0; w < c->nworkers; w++)
		bp_txn_stats_drain_until(&c->stats[w], until);
	while (__atomic_load_n(&c->out->inflight.now, __ATOMIC_RELAXED) > 0 &&
	       bp_now_ns() < until && !bp_stop_requested())
		poll(NULL, 0, 5);
	c->out->drained_s = (double)(bp_now_ns() - end) / 1e9;
}

/*
 * The run: flows go, the reporter marks intervals. The counted span starts after -O (and
 * --ramp); --concurrent runs until every flow has opened, held and checked its connections.
 */
static int run_timed(struct client *c)
{
	const struct bp_rr_client_opts *o = c->o;
	const struct bp_net_params *np = &o->np;
	uint64_t now = bp_now_ns(), start = now, counted_from = now + np->omit_ns + o->ramp_ns;
	uint64_t end = counted_from + np->time_ns, last = now, span_end;
	int rc = 0;

	if (o->concurrent)  /* -t is the hold; opening and checking take what they take */
		end = counted_from + np->time_ns +
		      o->timeout_ns * (uint64_t)(o->concurrent / np->parallel + 2) +
		      60 * BP_NS_PER_SEC;
	/* --concurrent ends when its flows are done; the others at a time known now. */
	for (int w = 0; w < c->nworkers && !o->concurrent; w++)
		bp_txn_stats_end_at(&c->stats[w], end);
	bp_stream_side_start(&c->side, start);
	now = bp_now_ns();  /* starting the flows took a while: wait from here */
	c->answered_ns = now;
	while (now < end && !all_flows_done(c)) {
		struct pollfd pfd = { .fd = c->ctl.fd, .events = POLLIN };
		uint64_t next = np->interval_ns ?
				start + ((last - start) / np->interval_ns + 1) * np->interval_ns : end;
		uint64_t due = next < end ? next : end;

		if (last < counted_from && counted_from < due)
			due = counted_from;
		if (due > now + TICK_NS)
			due = now + TICK_NS;
		if (poll(&pfd, 1, (int)((due - now + BP_NS_PER_MS - 1) / BP_NS_PER_MS)) > 0) {
			rc = bp_ctl_event(&c->ctl);
			break;
		}
		if (bp_stop_requested()) {
			c->out->interrupted = true;
			break;
		}
		now = bp_now_ns();
		if ((np->interval_ns && now >= next && next < end) ||
		    (last < counted_from && now >= counted_from)) {
			mark(c, last, now, last >= counted_from);
			last = now;
		}
		c->out->flow_error = first_flow_error(c);
		if (c->out->flow_error && !np->rr_udp && !bp_net_params_conns_while_running(np)) {
			rc = c->out->flow_error;
			snprintf(c->err, c->errlen, "a request/response connection broke: %s",
				 strerror(-rc));
			break;
		}
		if (answers_stopped(c, now)) {
			rc = -ETIMEDOUT;
			break;
		}
	}
	now = bp_now_ns();
	if (now > end)
		now = end;
	/* A test that broke off counts its rate up to its last answer, not over dead time. */
	span_end = rc && last_answer(c, now) < now ? c->answered_ns : now;
	for (int w = 0; w < c->nworkers; w++)  /* earlier than planned after a stop */
		bp_txn_stats_end_at(&c->stats[w], now);
	if (c->out->inflight_cap && !rc && !c->out->interrupted)
		drain(c, now);
	bp_stream_side_stop(&c->side, now);
	mark(c, last, now, last >= counted_from);
	c->out->duration_s = (double)(now - start) / 1e9;
	c->out->counted_s = span_end > counted_from ? (double)(span_end - counted_from) / 1e9 : 0;
	return rc;
}

static int exchange_results(struct client *c)
{
	char why[160];
	json_t *mine = bp_net_results_to_json(c->side.res), *theirs = NULL;
	int rc = bp_ctl_finish(&c->ctl, mine, &theirs);

	if (!rc && bp_net_results_from_json(theirs, c->out->remote, why, sizeof(why))) {
		snprintf(c->err, c->errlen, "the server's results are unreadable: %s", why);
		rc = -EBADMSG;
	}
	json_decref(mine);
	json_decref(theirs);
	return rc;
}

/* The "tw" figure of /proc/net/sockstat: TCP sockets in TIME_WAIT on this host. */
static long time_wait_sockets(void)
{
	FILE *f = fopen("/proc/net/sockstat", "r");
	char line[256];
	long tw = -1;

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "TCP:", 4)) {
			const char *p = strstr(line, " tw ");

			if (p)
				tw = strtol(p + 4, NULL, 10);
		}
	if (f)
		fclose(f);
	return tw;
}

/*
 * crr --connect-only has no control connection: any TCP listener will do. One connection
 * first, so that a wrong host or a closed port is one line at once, as for the other tests,
 * rather than a run of refused connections.
 */
static int connect_only_start(struct client *c)
{
	const struct bp_rr_client_opts *o = c->o;
	int rc = bp_resolve(o->host, o->port, o->family, false, &c->ctl.addr, c->err, c->errlen);
	int fd = -1;

	if (!rc)
		rc = bp_stream_connect(&c->ctl.addr, o->np.sctp ? IPPROTO_SCTP : IPPROTO_TCP,
				       bp_now_ns() + o->connect_timeout_ns, NULL, NULL, &fd,
				       c->err, c->errlen);
	if (fd >= 0)
		close(fd);
	return rc ? rc : open_flows(c);
}

/*
 * rr --iperf2: no control connection, the flows go straight to the server's port (iperf 2's
 * bounceback: each connection a test of its own).
 */
static int iperf2_start(struct client *c)
{
	const struct bp_rr_client_opts *o = c->o;
	int rc = bp_resolve(o->host, o->port, o->family, false, &c->ctl.addr, c->err, c->errlen);

	return rc ? rc : open_flows(c);
}

/*
 * rr --iperf2, after the flows stopped: each connection ends as iperf -c's does, with this
 * side's FIN and the server's close (a request still out is answered and read first: a close
 * with unread bytes would reset the server's connection), and the one-way delays the flows
 * read with --trip-times.
 */
static void iperf2_end(struct client *c)
{
	bp_iperf2_client_close(&c->side, bp_now_ns() + idle_ns(c->o));
	for (int i = 0; i < c->nflows; i++)
		bp_rr_flow_owd(c->flows[i], &c->out->owd_up, &c->out->owd_down);
}

static void cleanup(struct client *c)
{
	if (c->side_ready) {
		c->out->local = c->side.res;  /* the CPU figures, also after a failure */
		c->side.res = NULL;
		bp_stream_side_free(&c->side);
	}
	if (c->pool)
		bp_stream_pool_free(c->pool);
	for (int w = 0; c->stats && w < c->nworkers; w++)
		bp_txn_stats_free(&c->stats[w]);
	free(c->stats);
	bp_conn_hists_free(&c->iv_h);
	bp_conn_hists_free(&c->total_h);
	bp_ctl_close(&c->ctl);
}

int bp_rr_client_run(const struct bp_rr_client_opts *o, struct bp_rr_outcome *out,
		     char *err, size_t errlen)
{
	struct client c = { .o = o, .out = out, .ctl.fd = -1, .err = err, .errlen = errlen };
	int rc;

	memset(out, 0, sizeof(*out));
	err[0] = '\0';
	bp_welford_init(&out->owd_up);
	bp_welford_init(&out->owd_down);
	out->cc.to_open = o->concurrent;
	out->cc.hold_ns = o->np.time_ns;
	out->remote = calloc(1, sizeof(*out->remote));
	out->iv = calloc(BP_NET_MAX_INTERVALS, sizeof(*out->iv));
	if (!out->remote || !out->iv || bp_conn_hists_init(&c.iv_h) || bp_conn_hists_init(&c.total_h)) {
		cleanup(&c);
		return -ENOMEM;
	}
	if (bp_net_params_conns_while_running(&o->np) && o->rate > 0 && !o->concurrent) {
		rc = bp_rr_inflight_cap(o->rate, o->timeout_ns, o->np.parallel, o->max_inflight,
					&out->inflight_cap, err, errlen);
		out->inflight_need = bp_rr_inflight_need(o->rate, o->timeout_ns, o->np.parallel);
		/* whole slots per flow: what is split is what is reported */
		out->inflight_cap -= out->inflight_cap % (size_t)o->np.parallel;
		if (rc) {
			cleanup(&c);
			return rc;
		}
	}
	if (o->connect_only) {
		rc = connect_only_start(&c);
	} else if (o->np.iperf2) {
		rc = iperf2_start(&c);
	} else {
		rc = bp_ctl_start(&c.ctl, &(struct bp_ctl_target){ o->host, o->port, o->family,
								    o->connect_timeout_ns,
								    o->idle_timeout_ns, o->psk },
				  &o->np, open_flows, &c, err, errlen);
	}
	if (!rc) {
		bp_addr_str(&c.ctl.addr, out->server_addr, sizeof(out->server_addr));
		out->this_host = bp_addr_is_this_host(&c.ctl.addr);
		out->path = bp_net_path_collect(&c.ctl.addr);
		/* --start-at: connected and set up, the first byte waits for the instant */
		rc = bp_start_at_wait_mark(out->start_at_ns = o->start_at_ns, &out->started_ns);
		rc = rc ? rc : run_timed(&c);
		if (o->np.iperf2)
			iperf2_end(&c);
		bp_histo_summarize(c.total_h.latency, &out->latency);
		bp_histo_summarize(c.total_h.connect, &out->connect);
		out->latency_tm95 = bp_histo_trimmed_mean(c.total_h.latency, 95);
		out->hists = c.total_h;  /* the outcome's now: cleanup frees none */
		c.total_h = (struct bp_conn_hists){ 0 };
		out->time_wait = time_wait_sockets();
		out->workers = c.nworkers;
		if (!rc && !o->connect_only && !o->np.iperf2)
			rc = exchange_results(&c);
	}
	if (rc == -ENOMEM && !err[0])
		snprintf(err, errlen, "out of memory");
	cleanup(&c);
	return rc;
}

void bp_rr_outcome_free(struct bp_rr_outcome *out)
{
	free(out->local);
	free(out->remote);
	free(out->iv);
	bp_conn_hists_free(&out->hists);
	out->local = out->remote = NULL;
	out->iv = NULL;
	json_decref(out->path);
	out->path = NULL;
}
