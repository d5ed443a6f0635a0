#include "http/http_report.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "board/net_path.h"
#include "board/start_at_result.h"
#include "core/cpuacct.h"
#include "result/result_latency.h"
#include "result/result_this_host.h"
#include "result/result_verdict.h"

static double per_s(uint64_t n, double secs)
{
	return secs > 0 ? (double)n / secs : 0;
}

/* errors, errors.KIND for each kind seen, status.NNN for each status seen. */
static void add_counts(struct bp_result *r, const struct bp_http_outcome *out)
{
	char name[48];

	bp_result_add_metric(r, "errors", (double)bp_txn_counts_failures(&out->total.txn), "count",
			     BP_BETTER_LOWER);
	for (int k = 0; k < BP_HTTP_NERR; k++) {
		if (!out->total.txn.fails[k])
			continue;
		snprintf(name, sizeof(name), "errors.%s", bp_http_err_name(k));
		bp_result_add_metric(r, name, (double)out->total.txn.fails[k], "count",
				     BP_BETTER_LOWER);
	}
	for (int s = 0; s < BP_HTTP_STATUS_MAX; s++) {
		if (!out->status[s])
			continue;
		snprintf(name, sizeof(name), "status.%d", s);
		bp_result_add_metric(r, name, (double)out->status[s], "count", BP_BETTER_NONE);
	}
}

void bp_http_interval_metrics(struct bp_interval *iv, const struct bp_http_interval *v)
{
	double secs = v->end_s - v->start_s;

	bp_interval_add_metric(iv, "requests.rate", per_s(v->c.txn.done, secs), "op/s",
			       BP_BETTER_HIGHER);
	bp_interval_add_metric(iv, "bytes.rate", per_s(v->c.txn.bytes, secs), "B/s",
			       BP_BETTER_HIGHER);
	bp_interval_add_latency(iv, &v->latency);
	bp_interval_add_metric(iv, "errors", (double)bp_txn_counts_failures(&v->c.txn), "count",
			       BP_BETTER_LOWER);
}

static void add_intervals(struct bp_result *r, const struct bp_http_outcome *out)
{
	for (int i = 0; i < out->niv; i++) {
		const struct bp_http_interval *v = &out->iv[i];
		struct bp_interval *iv = bp_result_add_interval(r, v->start_s, v->end_s);

		if (!iv)
			return;
		bp_http_interval_metrics(iv, v);
	}
}

static void add_cpu(struct bp_result *r, const struct bp_http_outcome *out)
{
	struct bp_cpu_usage u = { .user_s = out->cpu_user_s, .sys_s = out->cpu_sys_s,
				  .wall_s = out->duration_s };
	json_t *local;

	u.busy_share = u.wall_s > 0 ? (u.user_s + u.sys_s) / u.wall_s : NAN;
	local = bp_cpu_usage_json(&u);
	if (local) {
		json_object_set_new(local, "busiest_worker_share", json_real(out->busy_max));
		/* Polling toward a server on this machine (io/busy_poll.h): null when off. */
		json_object_set_new(local, "busy_poll", !out->poll_max_us ? json_null() :
				    json_pack("{s:f,s:f,s:I,s:I}", "max_us", out->poll_max_us,
					      "seconds", out->polled_s, "waits", (json_int_t)out->polls,
					      "served", (json_int_t)out->poll_hits));
	}
	bp_result_set_cpu(r, json_pack("{s:o*}", "local", local));
	/* What a load generator costs per request: the figure to compare with wrk's. */
	if (out->total.txn.done)
		bp_result_add_metric(r, "cpu.per_request",
				     (out->cpu_user_s + out->cpu_sys_s) * 1e9 /
				     (double)out->total.txn.done, "ns", BP_BETTER_LOWER);
	if (out->busy_max >= BP_CPU_BOUND_SHARE)
		bp_result_add_warning(r, "tester-cpu-bound",
				      "the busiest load worker used %.0f %% of its core: the figure "
				      "may be this tester's limit, not the server's (more -T, or a "
				      "faster client)", out->busy_max * 100);
}

/*
 * RFC 9411: a run counts only if its failed transactions stay under a threshold. Failed: a
 * request that got no whole response (errors.*) or one that was not 2xx; tried: those and
 * the whole responses (which count the non-2xx already).
 */
static void verdict(struct bp_result *r, const struct bp_http_client_opts *o,
		    const struct bp_http_outcome *out)
{
	uint64_t fails = bp_txn_counts_failures(&out->total.txn);
	uint64_t tried = out->total.txn.done + fails - out->total.txn.fails[BP_HTTP_ERR_STATUS];
	double pct = tried ? 100.0 * (double)fails / (double)tried : 0;
	bool pass = tried && pct <= o->max_failure_pct;

	bp_result_add_metric(r, "failure_ratio", pct, "percent", BP_BETTER_LOWER);
	bp_result_set_verdict(r, pass, "%" PRIu64 " of %" PRIu64 " requests failed (%.4f %%), "
			      "threshold %g %%", fails, tried, pct, o->max_failure_pct);
}

static void add_warnings(struct bp_result *r, const struct bp_http_client_opts *o,
			 const struct bp_http_outcome *out, double rate)
{
	char msg[1024] = "";
	size_t used = 0;

	for (int k = 0; k < BP_HTTP_NERR; k++)
		if (out->total.txn.fails[k] && out->first_error[k][0] && used < sizeof(msg))
			used += (size_t)snprintf(msg + used, sizeof(msg) - used, "%s%s: %" PRIu64
						 " (first: %s)", used ? "; " : "",
						 bp_http_err_name(k), out->total.txn.fails[k],
						 out->first_error[k]);
	if (msg[0])
		bp_result_add_warning(r, "http-errors", "%s", msg);
	if (out->total.txn.fails[BP_HTTP_ERR_STATUS])
		bp_result_add_warning(r, "non-2xx", "%" PRIu64 " of %" PRIu64 " responses were "
				      "not 2xx (see status.*)", out->total.txn.fails[BP_HTTP_ERR_STATUS],
				      out->total.txn.done);
	if (o->rate > 0 && out->duration_s > 0 && rate < o->rate * 0.99)
		bp_result_add_warning(r, "rate-not-reached",
				      "%.0f requests/s offered, %.0f/s answered: the server (or "
				      "this tester, or too few connections: -c) could not keep up; "
				      "latency counts from each request's due time", o->rate, rate);
	if (o->rate > 0)
		(void)bp_result_warn_late_starts(r, out->total.txn.late, out->total.txn.done,
						 "requests", "connections whose answers were still "
						 "coming: -c more; or this tester's own wake-ups: "
						 "cpu.local.late_wakeups_s");
	if (out->interrupted)
		bp_result_add_warning(r, "interrupted", "stopped early after %.1f s",
				      out->duration_s);
}

int bp_http_report(struct bp_result *r, const struct bp_http_client_opts *o,
		   const struct bp_http_outcome *out)
{
	double secs = out->duration_s, rate = per_s(out->total.txn.done, secs);

	bp_result_add_metric(r, "requests", (double)out->total.txn.done, "count",
			     BP_BETTER_NONE);
	bp_result_add_metric(r, "requests.rate", rate, "op/s", BP_BETTER_HIGHER);
	bp_result_add_metric(r, "bytes", (double)out->total.txn.bytes, "B", BP_BETTER_NONE);
	bp_result_add_metric(r, "bytes.rate", per_s(out->total.txn.bytes, secs), "B/s",
			     BP_BETTER_HIGHER);
	bp_result_add_metric(r, "connections", (double)out->total.txn.connects, "count",
			     BP_BETTER_NONE);
	if (o->new_conn)
		bp_result_add_metric(r, "connections.rate", per_s(out->total.txn.connects, secs),
				     "op/s", BP_BETTER_HIGHER);
	if (o->rate > 0) {
		bp_result_add_metric(r, "offered.rate", o->rate, "op/s", BP_BETTER_NONE);
		bp_result_add_metric(r, "requests.offered", (double)out->offered, "count",
				     BP_BETTER_NONE);
		bp_result_add_metric(r, "late", (double)out->total.txn.late, "count", BP_BETTER_LOWER);
	}
	add_counts(r, out);
	bp_result_add_latency_histo(r, "request", out->hists.latency);
	bp_result_add_latency_histo(r, "connect", out->hists.connect);
	add_intervals(r, out);
	add_cpu(r, out);
	add_warnings(r, o, out, rate);
	if (o->verdict)
		verdict(r, o, out);
	if (out->this_host)
		bp_result_warn_this_host(r, out->server_addr);
	json_object_set_new(r->params, "server", json_string(out->server_addr));
	json_object_set_new(r->params, "threads", json_integer(out->threads));
	json_object_set_new(r->params, "request_bytes", json_integer((json_int_t)out->request_bytes));
	json_object_set_new(r->params, "tls", out->tls[0] ? json_string(out->tls) : json_null());
	if (out->started_ns && bp_start_at_record(r, out->start_at_ns, out->started_ns))
		return -ENOMEM;
	/* the answers' bytes, the most of what crossed the link */
	return bp_net_path_attach(r, out->path, 8 * per_s(out->total.txn.bytes, secs));
}

/* The first error message there is, for a run that got no answer at all. */
static const char *first_error(const struct bp_http_outcome *out)
{
	for (int k = 0; k < BP_HTTP_NERR; k++)
		if (out->first_error[k][0])
			return out->first_error[k];
	return NULL;
}

int bp_http_run_and_report(const struct bp_http_client_opts *o, struct bp_result *r,
			   char *err, size_t errlen)
{
	struct bp_http_outcome out;
	int rc = bp_http_client_run(o, &out, err, errlen);

	/* Ctrl-C before any answer measured nothing: no figures of zero (the CLI's rule). */
	if (!rc && !out.total.txn.done && out.interrupted) {
		snprintf(err, errlen, "interrupted after %.1f s, before any response arrived",
			 out.duration_s);
		rc = -EINTR;
	} else if (!rc) {
		bp_http_report(r, o, &out);
		if (!out.total.txn.done && !out.interrupted) {
			const char *why = first_error(&out);

			snprintf(err, errlen, "no response in %.1f s%s%s", out.duration_s,
				 why ? ": " : " (the server accepted but did not answer)",
				 why ? why : "");
			rc = -EIO;
		}
	}
	bp_http_outcome_free(&out);
	return rc;
}
