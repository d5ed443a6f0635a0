/*
 * crr --search's trials (the search itself: crr_search.h). Each trial is a whole crr run
 * (its own session with the server) in the open loop at the trial's rate, so that every
 * connection is offered on time whatever the path drops; it passes when the tester started
 * the rate (no rate-not-reached, no wait for the in-flight cap) and the failed share of its
 * attempts is at most --max-failure-ratio. The result is the highest rate that passed,
 * with every trial as an interval (offered, achieved, failures), as rfc2544 gives its own.
 */
#include "rr/crr_search_run.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "core/clock.h"
#include "core/log.h"
#include "core/signals.h"
#include "rr/crr_search.h"

/* The first trial's rate when --rate does not give one: low enough to pass nearly anywhere. */
#define SEARCH_START 100.0
/*
 * A trial the tester could not offer (it started less than the rate, or waited for the
 * in-flight cap: its CPU, a stalled server on the same machine) and that stayed within the
 * failure threshold is run again this often before it counts as failed: it says nothing
 * about the path. One whose failures passed the threshold failed on the path's account.
 */
#define TESTER_RETRIES 2
/* Beyond --rate's own bound the search does not go. */
#define SEARCH_MAX 1e8

struct trial {
	double offered, started_rate, achieved, ratio, start_s, end_s;
	uint64_t done, drained, failures, started, waits, retransmits;
	uint64_t fails[BP_RR_NFAIL];
	bool tester_limited, passed;
};

static int run_trial(const struct bp_rr_client_opts *base, double rate, double threshold,
		     uint64_t t0, struct trial *t, char *err, size_t errlen)
{
	struct bp_rr_client_opts o = *base;
	struct bp_rr_outcome out;
	const struct bp_txn_counts *c = &out.total.txn;
	double secs;
	int rc;

	o.rate = rate;
	*t = (struct trial){ .offered = rate, .start_s = (double)(bp_now_ns() - t0) / 1e9 };
	rc = bp_rr_client_run(&o, &out, err, errlen);
	t->end_s = (double)(bp_now_ns() - t0) / 1e9;
	if (!rc && out.interrupted)
		rc = -EINTR;
	if (!rc) {
		secs = out.counted_s;
		t->done = c->done;
		t->drained = c->drained;
		t->failures = bp_txn_counts_failures(c);
		t->started = c->started;
		t->waits = out.inflight.waits;
		t->retransmits = c->retransmits;
		for (int k = 0; k < BP_RR_NFAIL; k++)
			t->fails[k] = c->fails[k];
		t->achieved = secs > 0 ? (double)c->done / secs : 0;
		t->started_rate = secs > 0 ? (double)c->started / secs : 0;
		t->ratio = t->done + t->drained + t->failures ?
			   100.0 * (double)t->failures / (double)(t->done + t->drained + t->failures) :
			   100;
		/* A rate the tester did not offer says nothing about the path. */
		t->tester_limited = t->started_rate < 0.99 * rate || t->waits > 0;
		t->passed = !t->tester_limited && t->done > 0 && t->ratio <= threshold;
	}
	bp_rr_outcome_free(&out);
	return rc;
}

static void record_trial(struct bp_result *r, const struct trial *t)
{
	struct bp_interval *iv = bp_result_add_interval(r, t->start_s, t->end_s);
	char name[48];

	bp_info("crr at %.0f connections/s: started %.0f/s, %.1f/s completed, %" PRIu64
		" of %" PRIu64 " attempts failed (%.4f %%)%s: %s", t->offered, t->started_rate,
		t->achieved, t->failures, t->done + t->drained + t->failures, t->ratio,
		t->tester_limited ? " [tester's limit]" : "", t->passed ? "pass" : "fail");
	if (!iv)
		return;
	bp_interval_add_metric(iv, "offered.rate", t->offered, "op/s", BP_BETTER_NONE);
	bp_interval_add_metric(iv, "started.rate", t->started_rate, "op/s", BP_BETTER_NONE);
	bp_interval_add_metric(iv, "connections.rate", t->achieved, "op/s", BP_BETTER_HIGHER);
	bp_interval_add_metric(iv, "transactions", (double)t->done, "count", BP_BETTER_NONE);
	bp_interval_add_metric(iv, "drained", (double)t->drained, "count", BP_BETTER_NONE);
	bp_interval_add_metric(iv, "failures", (double)t->failures, "count", BP_BETTER_LOWER);
	for (int k = 0; k < BP_RR_NFAIL; k++) {
		if (!t->fails[k])
			continue;
		snprintf(name, sizeof(name), "failures.%s", bp_rr_fail_name(k));
		bp_interval_add_metric(iv, name, (double)t->fails[k], "count", BP_BETTER_LOWER);
	}
	bp_interval_add_metric(iv, "failure_ratio", t->ratio, "percent", BP_BETTER_LOWER);
	bp_interval_add_metric(iv, "syn_retransmits", (double)t->retransmits, "count",
			       BP_BETTER_LOWER);
	bp_interval_add_metric(iv, "inflight.waits", (double)t->waits, "count", BP_BETTER_LOWER);
	bp_interval_add_metric(iv, "passed", t->passed, "count", BP_BETTER_NONE);
}

static void search_result(struct bp_result *r, const struct bp_crr_search *s,
			  const struct trial *best, const struct trial *limited, double threshold,
			  int runs, int repeated)
{
	double found = bp_crr_search_result(s);

	bp_result_add_metric(r, "search.rate", found, "op/s", BP_BETTER_HIGHER);
	bp_result_add_metric(r, "search.connections.rate", best ? best->achieved : 0, "op/s",
			     BP_BETTER_HIGHER);
	bp_result_add_metric(r, "search.failure_ratio", best ? best->ratio : 0, "percent",
			     BP_BETTER_LOWER);
	bp_result_add_metric(r, "search.failed_rate", s->hi, "op/s", BP_BETTER_NONE);
	if (!found)
		bp_result_add_warning(r, "search-no-pass",
				      "no trial passed, down to %g connections/s: more than %g %% of "
				      "the attempts failed at every rate tried",
				      s->hi, threshold);
	else if (bp_crr_search_at_ceiling(s))
		bp_result_add_warning(r, "search-ceiling",
				      "every trial passed up to %.0f connections/s, the search's "
				      "bound: the path's limit is higher", found);
	if (limited)
		bp_result_add_warning(r, "tester-limited",
				      "the trial at %.0f connections/s failed because the tester "
				      "started only %.0f/s%s: above it the answer is the tester's "
				      "limit, not the path's", limited->offered, limited->started_rate,
				      limited->waits ? " (the in-flight cap, --max-inflight, was "
				      "reached)" : "");
	bp_result_add_metric(r, "trials", runs, "count", BP_BETTER_NONE);
	bp_result_add_metric(r, "trials.repeated", repeated, "count", BP_BETTER_NONE);
	bp_info("crr --search: %.0f connections/s within %g %% failures (%d trials, %d of them "
		"repeats)", found, threshold, runs, repeated);
}

int bp_crr_search_run(const struct bp_rr_client_opts *o, const struct bp_rr_report_opts *ro,
		      double resolution_pct, struct bp_result *r, char *err, size_t errlen)
{
	struct bp_crr_search s;
	struct trial t, best = { 0 }, limited = { 0 };
	bool have_best = false, have_limited = false;
	uint64_t t0 = bp_now_ns();
	double rate;
	int rc = 0, runs = 0, repeated = 0;

	bp_crr_search_init(&s, o->rate > 0 ? o->rate : SEARCH_START, SEARCH_MAX, resolution_pct);
	while ((rate = bp_crr_search_next(&s)) > 0) {
		/* A trial the tester could not offer proves nothing: run it again, twice at most. */
		for (int again = 0; again <= TESTER_RETRIES; again++) {
			rc = run_trial(o, rate, ro->max_failure_pct, t0, &t, err, errlen);
			if (rc)
				break;
			record_trial(r, &t);
			runs++;
			repeated += again > 0;
			if (t.passed || !t.tester_limited || t.ratio > ro->max_failure_pct)
				break;  /* a trial the path failed on its own is not repeated */
		}
		if (rc)
			break;
		bp_crr_search_record(&s, rate, t.passed);
		if (t.passed && (!have_best || t.offered > best.offered)) {
			best = t;
			have_best = true;
		}
		if (!t.passed && t.tester_limited && t.ratio <= ro->max_failure_pct &&
		    (!have_limited || t.offered < limited.offered)) {
			limited = t;
			have_limited = true;
		}
	}
	if (rc == -EINTR) {
		bp_result_add_warning(r, "interrupted", "stopped after %d trials", s.trials);
		if (s.trials)
			rc = 0;  /* what was measured is the result */
		else
			snprintf(err, errlen, "interrupted");
	}
	if (!rc && s.trials) {
		search_result(r, &s, have_best ? &best : NULL, have_limited ? &limited : NULL,
			      ro->max_failure_pct, runs, repeated);
	}
	return rc;
}
