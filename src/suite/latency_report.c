#include "suite/latency_report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "result/result_this_host.h"

/* What one probe protocol's two children (idle, loaded) say. */
struct probe_pair {
	const char *proto;  /* "tcp" or "udp" */
	const struct bp_result *idle, *loaded;
};

static const char *param_str(const struct bp_result *r, const char *key)
{
	return r->params ? json_string_value(json_object_get(r->params, key)) : NULL;
}

static bool param_is(const struct bp_result *r, const char *key, const char *want)
{
	const char *v = param_str(r, key);

	return v && !strcmp(v, want);
}

static const struct bp_latency *find_latency(const struct bp_result *r, const char *what)
{
	for (size_t i = 0; r && i < r->nlatency; i++)
		if (r->latency[i].what && !strcmp(r->latency[i].what, what))
			return &r->latency[i];
	return NULL;
}

static double metric_or_nan(const struct bp_result *r, const char *name)
{
	const struct bp_metric *m = r ? bp_result_find_metric(r, name) : NULL;

	return m ? m->value : NAN;
}

/* An rr child's protocol: its params.udp (the option's effective value). */
static const char *probe_proto(const struct bp_result *r)
{
	return json_is_true(json_object_get(r->params, "udp")) ? "udp" : "tcp";
}

static void find_probes(const struct bp_result *r, struct probe_pair pairs[2])
{
	pairs[0] = (struct probe_pair){ .proto = "tcp" };
	pairs[1] = (struct probe_pair){ .proto = "udp" };
	for (size_t i = 0; i < r->nchildren; i++) {
		const struct bp_result *c = r->children[i];
		struct probe_pair *p;

		if (!c->params || !param_is(c, "role", "probe"))
			continue;
		p = &pairs[!strcmp(probe_proto(c), "udp")];
		if (param_is(c, "phase", "idle"))
			p->idle = c;
		else if (param_is(c, "phase", "loaded"))
			p->loaded = c;
	}
}

static const struct bp_result *find_load(const struct bp_result *r)
{
	for (size_t i = 0; i < r->nchildren; i++)
		if (r->children[i]->params && param_is(r->children[i], "role", "load"))
			return r->children[i];
	return NULL;
}

/* The child's transaction latency under the parent's name "<phase>.<proto>". */
static int copy_latency(struct bp_result *r, const struct bp_result *c, const char *phase,
			const char *proto)
{
	const struct bp_latency *l = find_latency(c, "transaction");
	struct bp_latency copy;
	char what[32];

	if (!l)
		return 0;
	copy = *l;
	snprintf(what, sizeof(what), "%s.%s", phase, proto);
	copy.what = what;
	return bp_result_add_latency(r, &copy);
}

static int add(struct bp_result *r, const char *proto, const char *name, double v,
	       const char *unit, enum bp_better better)
{
	char full[64];

	snprintf(full, sizeof(full), "%s.%s", proto, name);
	return bp_result_add_metric(r, full, v, unit, better);
}

/*
 * The delay the load added, percentile by percentile: what a probe waited more than on the
 * idle path (the queue it stood in). Round trips per minute from the trimmed mean the
 * draft uses (BP_LATENCY_RPM_METHOD).
 */
static int report_probe(struct bp_result *r, const struct probe_pair *p)
{
	const struct bp_latency *idle = find_latency(p->idle, "transaction");
	const struct bp_latency *loaded = find_latency(p->loaded, "transaction");
	double tm = metric_or_nan(p->loaded, "transaction.trimmed_mean_95");
	int rc = 0;

	if (p->idle)
		rc = copy_latency(r, p->idle, "idle", p->proto);
	if (!rc && p->loaded)
		rc = copy_latency(r, p->loaded, "loaded", p->proto);
	if (!rc && p->loaded)
		rc = add(r, p->proto, "loaded.failures", metric_or_nan(p->loaded, "failures"),
			 "count", BP_BETTER_LOWER);
	if (rc || !idle || !loaded)
		return rc;
	rc = add(r, p->proto, "added.p50", loaded->p50 - idle->p50, "ns", BP_BETTER_LOWER);
	if (!rc)
		rc = add(r, p->proto, "added.p90", loaded->p90 - idle->p90, "ns", BP_BETTER_LOWER);
	if (!rc)
		rc = add(r, p->proto, "added.p99", loaded->p99 - idle->p99, "ns", BP_BETTER_LOWER);
	if (!rc && tm > 0)
		rc = add(r, p->proto, "rpm", 60e9 / tm, "rpm", BP_BETTER_HIGHER);
	return rc;
}

/* The load's throughput: what its receivers got (both directions' with --bidir). */
static int report_load(struct bp_result *r, const struct bp_result *load)
{
	static const char *const prefixes[] = { "", "up.", "down." };
	double bits = 0, retrans = 0;
	bool any = false, any_retrans = false;
	char name[48];
	const char *cc;
	int rc;

	for (int i = 0; i < 3; i++) {
		double v;

		snprintf(name, sizeof(name), "%sreceiver.bitrate", prefixes[i]);
		v = metric_or_nan(load, name);
		if (isfinite(v)) {
			bits += v;
			any = true;
		}
		snprintf(name, sizeof(name), "%ssender.retransmits", prefixes[i]);
		v = metric_or_nan(load, name);
		if (isfinite(v)) {
			retrans += v;
			any_retrans = true;
		}
	}
	rc = any ? bp_result_add_metric(r, "load.bitrate", bits, "bit/s", BP_BETTER_HIGHER) : 0;
	if (!rc && any_retrans)
		rc = bp_result_add_metric(r, "load.retransmits", retrans, "count", BP_BETTER_NONE);
	cc = param_str(load, "congestion_used");
	if (!cc) {  /* --bidir: each direction's sender says its own */
		const char *up = param_str(load, "up.congestion_used");
		const char *down = param_str(load, "down.congestion_used");

		if (up && down && strcmp(up, down)) {
			snprintf(name, sizeof(name), "up %s, down %s", up, down);
			cc = name;
		} else {
			cc = up ? up : down;
		}
	}
	json_object_set_new(r->params, "congestion_used", json_string(cc ? cc : "unknown"));
	return rc;
}

int bp_latency_report(struct bp_result *r)
{
	struct probe_pair pairs[2];
	const struct bp_result *load = find_load(r);
	int rc = 0;

	find_probes(r, pairs);
	/*
	 * A load that failed (a congestion control the kernel lacks, a refused test) left the
	 * "loaded" probes on an idle path: no added delay and no RPM rather than figures that
	 * would read as a path without bufferbloat. Their own results stay among the children.
	 */
	if (load && load->error.code) {
		pairs[0].loaded = pairs[1].loaded = NULL;
		rc = bp_result_add_warning(r, "load-failed", "the load failed (%s): the loaded "
					   "phase's probes ran without it, so no added delay or RPM "
					   "is reported", load->error.message ? load->error.message :
					   load->error.code);
	}
	for (int i = 0; i < 2 && !rc; i++)
		rc = report_probe(r, &pairs[i]);
	/* The headline: TCP's, as the draft's probes are; UDP's when only UDP probed. */
	if (!rc) {
		const struct bp_metric *m = bp_result_find_metric(r, "tcp.rpm");
		double v = m ? m->value : metric_or_nan(r, "udp.rpm");

		if (isfinite(v))
			rc = bp_result_add_metric(r, "rpm", v, "rpm", BP_BETTER_HIGHER);
	}
	if (!rc && load)
		rc = report_load(r, load);
	if (!rc)
		json_object_set_new(r->params, "rpm_method", json_string(BP_LATENCY_RPM_METHOD));
	for (int i = 0; i < 2 && !rc; i++) {
		double lost = metric_or_nan(pairs[i].loaded, "failures");

		if (isfinite(lost) && lost > 0)
			rc = bp_result_add_warning(r, "probes-lost",
						   "%.0f %s probes under load got no answer (within "
						   "--timeout, or their connection broke): the loaded "
						   "percentiles cover the answered ones only, so the path "
						   "was slower than they show", lost, pairs[i].proto);
	}
	/* the children's clients know where the server was; the user reads this result */
	for (size_t i = 0; i < r->nchildren && !rc; i++) {
		const char *server = json_string_value(json_object_get(r->children[i]->params,
									"server"));

		if (bp_result_has_warning(r->children[i], "loopback"))
			rc = bp_result_warn_this_host(r, server ? server : "(unknown)");
	}
	return rc;
}
