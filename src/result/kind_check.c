#include "result/kind_check.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "result/kind.h"

static int check_metric(const struct bp_kind *k, const struct bp_result *r,
			const struct bp_metric *m, bool interval, char *err, size_t errlen)
{
	const struct bp_metric_decl *d = bp_kind_metric(k, m->name);
	const char *where = interval ? "interval" : "total", *unit;

	if (!d) {
		snprintf(err, errlen, "%s: metric '%s' (%s) is not in its catalogue", k->name,
			 m->name, where);
		return -EPROTO;
	}
	if (!(d->scope & (interval ? BP_SCOPE_INTERVAL : BP_SCOPE_TOTAL))) {
		snprintf(err, errlen, "%s: metric '%s' in the %s, its catalogue says %s only",
			 k->name, m->name, interval ? "intervals" : "totals", bp_scope_name(d->scope));
		return -EPROTO;
	}
	unit = strcmp(d->unit, "=") ? d->unit :
	       k->borrowed_unit ? k->borrowed_unit(r, m->name, d) : NULL;
	if (!unit) {
		snprintf(err, errlen, "%s: metric '%s' (%s) borrows no figure of a test it ran",
			 k->name, m->name, where);
		return -EPROTO;
	}
	if (strcmp(unit, m->unit ? m->unit : "")) {
		snprintf(err, errlen, "%s: metric '%s' (%s) in '%s', its catalogue says '%s'",
			 k->name, m->name, where, m->unit ? m->unit : "", unit);
		return -EPROTO;
	}
	return 0;
}

/*
 * A --repeat parent's own figure (result/repeat_figures.h): "runs", or a declared figure or
 * the headline latency's "<what>.p50" as the runs' median, with .min and .max in its unit
 * and .cov in percent.
 */
static int check_repeat_metric(const struct bp_kind *k, const struct bp_metric *m, char *err,
			       size_t errlen)
{
	static const char *const suffixes[] = { ".min", ".max", ".cov", "" };
	const char *unit = m->unit ? m->unit : "";
	char base[128];

	if (!strcmp(m->name, "runs") && !strcmp(unit, "count"))
		return 0;
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		size_t n = strlen(m->name), sl = strlen(suffixes[i]);
		const struct bp_metric_decl *d;
		bool latency;

		if (n <= sl || n - sl >= sizeof(base) || strcmp(m->name + n - sl, suffixes[i]))
			continue;
		snprintf(base, sizeof(base), "%.*s", (int)(n - sl), m->name);
		d = bp_kind_metric(k, base);
		latency = k->headline_latency && !strncmp(base, k->headline_latency,
							  strlen(k->headline_latency)) &&
			  !strcmp(base + strlen(k->headline_latency), ".p50");
		if (!d && !latency)
			continue;
		if (!strcmp(unit, !strcmp(suffixes[i], ".cov") ? "percent" : latency ? "ns" :
			    d->unit))
			return 0;
	}
	snprintf(err, errlen, "%s --repeat: metric '%s' in '%s' is not a declared figure's "
		 "median, .min, .max or .cov", k->name, m->name, unit);
	return -EPROTO;
}

/* A result that holds runs of its own kind: --repeat's parent. */
static bool repeat_parent(const struct bp_result *r)
{
	for (size_t i = 0; i < r->nchildren; i++)
		if (!r->children[i]->test || strcmp(r->children[i]->test, r->test))
			return false;
	return r->nchildren > 0;
}

int bp_kind_check_result(const struct bp_result *r, char *err, size_t errlen)
{
	const struct bp_kind *k = r->test ? bp_kind_find(r->test) : NULL;
	bool repeated = k && repeat_parent(r);
	int rc = 0;

	for (size_t i = 0; k && !rc && i < r->nmetrics; i++)
		rc = repeated ? check_repeat_metric(k, &r->metrics[i], err, errlen) :
				check_metric(k, r, &r->metrics[i], false, err, errlen);
	for (size_t i = 0; k && !rc && i < r->nintervals; i++)
		for (size_t j = 0; !rc && j < r->intervals[i].nmetrics; j++)
			rc = check_metric(k, r, &r->intervals[i].metrics[j], true, err, errlen);
	for (size_t i = 0; !rc && i < r->nchildren; i++)
		rc = bp_kind_check_result(r->children[i], err, errlen);
	return rc;
}
