#include "rr/rr_report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "board/net_path.h"
#include "board/start_at_result.h"
#include "core/log.h"
#include "result/result_latency.h"
#include "result/result_this_host.h"
#include "result/result_verdict.h"
#include "stream/stream_owd.h"
#include "stream/stream_report.h"

static bool is_crr(const struct bp_rr_client_opts *o)
{
	return bp_net_params_conns_while_running(&o->np);
}

/* No control connection (crr --connect-only, rr --iperf2): no server figures, no CPU. */
static bool no_control(const struct bp_rr_client_opts *o)
{
	return o->connect_only || o->np.iperf2;
}

static void add_failures(struct bp_result *r, const struct bp_rr_counts *c)
{
	char name[48];

	bp_result_add_metric(r, "failures", (double)bp_txn_counts_failures(&c->txn), "count",
			     BP_BETTER_LOWER);
	for (int k = 0; k < BP_RR_NFAIL; k++) {
		if (!c->txn.fails[k])
			continue;
		snprintf(name, sizeof(name), "failures.%s", bp_rr_fail_name(k));
		bp_result_add_metric(r, name, (double)c->txn.fails[k], "count", BP_BETTER_LOWER);
	}
}

void bp_rr_interval_metrics(struct bp_interval *iv, const struct bp_rr_client_opts *o,
			    const struct bp_rr_interval *v)
{
	double secs = v->end_s - v->start_s;

	bp_interval_add_metric(iv, is_crr(o) ? "connections.rate" : "transactions.rate",
			       secs > 0 ? (double)v->c.txn.done / secs : 0, "op/s",
			       BP_BETTER_HIGHER);
	bp_interval_add_latency(iv, &v->latency);
	if (bp_txn_counts_failures(&v->c.txn) || is_crr(o))
		bp_interval_add_metric(iv, "failures", (double)bp_txn_counts_failures(&v->c.txn),
				       "count", BP_BETTER_LOWER);
	if (v->omitted)
		bp_interval_add_metric(iv, "omitted", 1, "count", BP_BETTER_NONE);
}

static void add_intervals(struct bp_result *r, const struct bp_rr_client_opts *o,
			  const struct bp_rr_outcome *out)
{
	for (int i = 0; i < out->niv; i++) {
		const struct bp_rr_interval *v = &out->iv[i];
		struct bp_interval *iv = bp_result_add_interval(r, v->start_s, v->end_s);

		if (!iv)
			return;
		bp_rr_interval_metrics(iv, o, v);
	}
}

/* net.ipv4.ip_local_port_range: false when it cannot be read. */
static bool port_range(long *lo, long *hi)
{
	FILE *f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "r");
	bool ok = f && fscanf(f, "%ld %ld", lo, hi) == 2 && *hi >= *lo;

	if (f)
		fclose(f);
	return ok;
}

/* The client ran out of ephemeral ports: say why and what helps. */
static void port_warning(struct bp_result *r, const struct bp_rr_client_opts *o,
			 const struct bp_rr_outcome *out)
{
	char range[64] = "?";
	long lo, hi;

	if (port_range(&lo, &hi))
		snprintf(range, sizeof(range), "%ld %ld", lo, hi);
	bp_result_add_warning(r, "port-exhaustion",
			      "%" PRIu64 " connects failed with EADDRNOTAVAIL: the client ran out "
			      "of ephemeral ports (net.ipv4.ip_local_port_range %s; %ld TCP sockets "
			      "in TIME_WAIT on this host). %s",
			      out->total.txn.fails[BP_RR_FAIL_NO_PORT], range, out->time_wait,
			      o->connect_only ?
			      "--connect-only closes first, so TIME_WAIT stays here: widen the "
			      "port range, set net.ipv4.tcp_tw_reuse=1, or measure whole crr "
			      "transactions against boardperf serve, which closes first" :
			      "boardperf's server closes first so that TIME_WAIT stays on its "
			      "side; with another server, widen the port range or lower --rate/-P");
}

/*
 * --connect-only closes first, as iperf2 does, so each connection leaves a TIME_WAIT socket
 * here for 60 s. Once they hold most of the ephemeral ports, every connect() searches for a
 * free one (where net.ipv4.tcp_tw_reuse lets it take one over, as on loopback by default)
 * or fails: measured on loopback, 40,000/s for 0.3 s, then about 430/s. Say so when the
 * count at the end shows it.
 */
static void time_wait_warning(struct bp_result *r, const struct bp_rr_outcome *out)
{
	long lo, hi;

	if (!port_range(&lo, &hi) || out->time_wait < (hi - lo + 1) / 2)
		return;
	bp_result_add_warning(r, "time-wait-bound",
			      "%ld TCP sockets in TIME_WAIT on this host, the ephemeral port range "
			      "has %ld: --connect-only closes first, so each connection holds a "
			      "port here for 60 s and connect() has to search for free ones, which "
			      "limits the rate. Whole crr transactions (the server closes first) do "
			      "not have this limit", out->time_wait, hi - lo + 1);
}

/*
 * crr --rate: the connections it had in flight. Each due connection starts on its own socket
 * (rr_flow_slots.c), up to the cap; a transaction that found every socket busy started late.
 */
static void inflight_report(struct bp_result *r, const struct bp_rr_outcome *out)
{
	bp_result_add_metric(r, "inflight.cap", (double)out->inflight_cap, "count",
			     BP_BETTER_NONE);
	bp_result_add_metric(r, "inflight.peak", (double)out->inflight.peak, "count",
			     BP_BETTER_NONE);
	bp_result_add_metric(r, "inflight.waits", (double)out->inflight.waits, "count",
			     BP_BETTER_LOWER);
	bp_result_add_metric(r, "drained", (double)out->total.txn.drained, "count",
			     BP_BETTER_NONE);
	if (out->inflight.waits)
		bp_result_add_warning(r, "inflight-cap-reached",
				      "%" PRIu64 " connections were due while their flow's share of the "
				      "in-flight cap (%zu sockets in all, --max-inflight; the rate may "
				      "need %zu) was busy: they started late, their latency counts "
				      "from their due time. Raise --max-inflight (and ulimit -n) or "
				      "lower --timeout",
				      out->inflight.waits, out->inflight_cap, out->inflight_need);
}

/*
 * A closed loop through a path that drops SYNs (a firewall's limit on new connections)
 * measures TCP's retransmission timer: each dropped SYN holds its flow for the initial RTO
 * (1 s), so after a second or so every flow waits and the rate is a small fraction of what
 * the path admits. Say so, with what measures the path instead.
 */
static void stall_warning(struct bp_result *r, const struct bp_rr_client_opts *o,
			  const struct bp_rr_outcome *out)
{
	uint64_t rtx = out->total.txn.retransmits, tmo = out->total.txn.fails[BP_RR_FAIL_TIMEOUT];

	if (o->rate > 0 || o->concurrent || (!rtx && !tmo))
		return;
	bp_result_add_warning(r, "syn-drops-stalled-flows",
			      "the path dropped SYNs: %" PRIu64 " SYN retransmissions (TCP_INFO) "
			      "and %" PRIu64 " connections timed out (--timeout %g s). In a closed "
			      "loop each drop stalls its flow for TCP's 1 s retransmission, so "
			      "%.1f connections/s measures the stalls of %d flows, not the rate the "
			      "path admits: use --rate R (an open loop, each connection on time) or "
			      "--search (finds the highest rate within --max-failure-ratio)",
			      rtx, tmo, (double)o->timeout_ns / 1e9,
			      out->counted_s > 0 ? (double)out->total.txn.done / out->counted_s : 0,
			      o->np.parallel);
}

/* RFC 9411: a run counts only if failures stay under a threshold; say which it was. */
static void verdict(struct bp_result *r, const struct bp_rr_client_opts *o,
		    const struct bp_rr_report_opts *ro, const struct bp_rr_outcome *out)
{
	uint64_t fails = bp_txn_counts_failures(&out->total.txn);
	uint64_t attempts = out->total.txn.done + out->total.txn.drained + fails;
	double pct = attempts ? 100.0 * (double)fails / (double)attempts : 0;
	bool pass = attempts && pct <= ro->max_failure_pct;

	if (o->concurrent)
		pass = pass && out->cc.peak >= o->concurrent && out->cc.dropped == 0;
	bp_result_add_metric(r, "failure_ratio", pct, "percent", BP_BETTER_LOWER);
	bp_result_set_verdict(r, pass, "%" PRIu64 " of %" PRIu64 " attempts failed (%.4f %%), "
			      "threshold %g %%%s", fails, attempts, pct, ro->max_failure_pct,
			      o->concurrent && out->cc.peak < o->concurrent ?
			      "; fewer connections held than asked" : "");
}

static void concurrent_metrics(struct bp_result *r, const struct bp_rr_client_opts *o,
			       const struct bp_rr_outcome *out)
{
	bp_result_add_metric(r, "concurrent.target", (double)o->concurrent, "count",
			     BP_BETTER_NONE);
	bp_result_add_metric(r, "concurrent.established", (double)out->cc.peak, "count",
			     BP_BETTER_HIGHER);
	bp_result_add_metric(r, "concurrent.alive", (double)out->cc.alive, "count",
			     BP_BETTER_HIGHER);
	bp_result_add_metric(r, "concurrent.dropped", (double)out->cc.dropped, "count",
			     BP_BETTER_LOWER);
}

static uint64_t served_by_server(const struct bp_net_results *remote)
{
	uint64_t n = 0;

	for (int i = 0; i < remote->nstreams; i++)
		n += remote->streams[i].packets;
	return n;
}

int bp_rr_report(struct bp_result *r, const struct bp_rr_client_opts *o,
		 const struct bp_rr_report_opts *ro, const struct bp_rr_outcome *out)
{
	double secs = out->counted_s, rate = secs > 0 ? (double)out->total.txn.done / secs : 0;

	bp_result_add_metric(r, "transactions", (double)out->total.txn.done, "count",
			     BP_BETTER_NONE);
	if (is_crr(o) && !o->concurrent) {
		bp_result_add_metric(r, "connections.rate", rate, "op/s", BP_BETTER_HIGHER);
		bp_result_add_metric(r, "connections", (double)out->total.txn.connects, "count",
				     BP_BETTER_NONE);
	} else if (!o->concurrent) {
		bp_result_add_metric(r, "transactions.rate", rate, "op/s", BP_BETTER_HIGHER);
	}
	if (o->rate > 0) {
		bp_result_add_metric(r, "offered.rate", o->rate, "op/s", BP_BETTER_NONE);
		bp_result_add_metric(r, "started", (double)out->total.txn.started, "count",
				     BP_BETTER_NONE);
		bp_result_add_metric(r, "late", (double)out->total.txn.late, "count", BP_BETTER_LOWER);
	}
	if (out->inflight_cap)
		inflight_report(r, out);
	if (is_crr(o))
		bp_result_add_metric(r, "syn_retransmits", (double)out->total.txn.retransmits,
				     "count", BP_BETTER_LOWER);
	/*
	 * --connect-only has no control connection: the far side's counts and CPU are unknown;
	 * nor are they when its results never came (a second Ctrl-C, a server gone): no count
	 * rather than a 0 it did not say.
	 */
	if (!no_control(o) && out->remote->nstreams)
		bp_result_add_metric(r, "server.transactions",
				     (double)served_by_server(out->remote), "count", BP_BETTER_NONE);
	add_failures(r, &out->total);
	if (o->concurrent)
		concurrent_metrics(r, o, out);
	if (!o->connect_only)  /* there the transaction is the connect */
		bp_result_add_latency_histo(r, is_crr(o) ? "connect_request_response_close" :
					    "transaction", out->hists.latency);
	/* The responsiveness draft's aggregate (suite/latency_report.c turns it into RPM). */
	if (!is_crr(o) && out->latency.count)
		bp_result_add_metric(r, "transaction.trimmed_mean_95", out->latency_tm95, "ns",
				     BP_BETTER_LOWER);
	bp_result_add_latency_histo(r, "connect", out->hists.connect);
	/* rr --iperf2 --trip-times: the server read the request, this host the answer */
	if (bp_report_owd(r, "request.", &out->owd_up, out->this_host, true) ||
	    bp_report_owd(r, "response.", &out->owd_down, out->this_host, false))
		return -ENOMEM;
	add_intervals(r, o, out);
	if (no_control(o))
		bp_result_set_cpu(r, json_pack("{s:o}", "local", bp_net_side_cpu_json(out->local)));
	else
		bp_result_set_cpu(r, json_pack("{s:o, s:o}", "local",
					       bp_net_side_cpu_json(out->local), "remote",
					       bp_net_side_cpu_json(out->remote)));
	bp_net_cpu_warnings(r, out->local, out->remote);
	/*
	 * The offered rate is what started: through a path that refuses or drops some, fewer
	 * complete, and that is the measurement (failures), not the tester falling behind.
	 */
	if (o->rate > 0 && !o->concurrent && secs > 0 &&
	    (double)out->total.txn.started / secs < o->rate * 0.99)
		bp_result_add_warning(r, "rate-not-reached",
				      "%.0f transactions/s offered, %.0f/s started, %.0f/s completed: "
				      "the tester%s could not keep up; latency counts from each "
				      "transaction's due time", o->rate,
				      (double)out->total.txn.started / secs, rate,
				      is_crr(o) ? "" : " (or the peer: one request per flow at a time)");
	if (o->rate > 0 && !o->concurrent)
		(void)bp_result_warn_late_starts(r, out->total.txn.late, out->total.txn.done,
						 "transactions", is_crr(o) ?
						 "this tester's own wake-ups: cpu.local.late_wakeups_s, "
						 "or its cap on connections in flight" :
						 "a flow's answer still coming: -P more; or this "
						 "tester's own wake-ups: cpu.local.late_wakeups_s");
	if (is_crr(o))
		stall_warning(r, o, out);
	if (out->total.txn.fails[BP_RR_FAIL_NO_PORT])
		port_warning(r, o, out);
	else if (o->connect_only)
		time_wait_warning(r, out);
	if (out->interrupted)
		bp_result_add_warning(r, "interrupted", "stopped early after %.1f s%s",
				      out->duration_s, out->remote->nstreams || no_control(o) ? "" :
				      "; the server's figures are missing");
	if (out->data_stopped)
		bp_result_add_warning(r, "data-stopped", "no data moved after %.1f s (no answer "
				      "for %g s, --idle-timeout): a cut link or a server gone; rates "
				      "cover the time answers came%s", out->stopped_s, out->idle_s,
				      out->remote->nstreams || no_control(o) ? "" :
				      ", and the server's figures never arrived");
	if (is_crr(o))
		verdict(r, o, ro, out);
	if (out->this_host)
		bp_result_warn_this_host(r, out->server_addr);
	json_object_set_new(r->params, "server", json_string(out->server_addr));
	json_object_set_new(r->params, "workers", json_integer(out->workers));
	if (out->started_ns && bp_start_at_record(r, out->start_at_ns, out->started_ns))
		return -ENOMEM;
	/* a request/response figure is no bit rate: the path, and what it says of a VLAN */
	return bp_net_path_attach(r, out->path, 0);
}

int bp_rr_run_and_report(const struct bp_rr_client_opts *o, const struct bp_rr_report_opts *ro,
			 struct bp_result *r, char *err, size_t errlen)
{
	struct bp_rr_outcome out;
	int rc = bp_rr_client_run(o, &out, err, errlen), report_rc = 0;

	/* What was measured is reported, also when the exchange failed late. */
	if (out.local && out.remote && out.iv)
		report_rc = bp_rr_report(r, o, ro, &out);
	bp_rr_outcome_free(&out);
	return rc ? rc : report_rc;
}
