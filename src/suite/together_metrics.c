/*
 * What together emits (together_report.c): each test's headline figures under its label
 * (A, B, ...), alone and together, medians over the rounds, and what each lost together;
 * its intervals carry each test's own under its label. The figures are other kinds' (a
 * cpu's "sha256.16", a udp's "receiver.pps"), so the rows are naming rules, their unit "="
 * the borrowed figure's, which borrowed_unit reads from that test's own kind.
 */
#include "suite/together_metrics.h"

#include <string.h>

#include <jansson.h>

static const struct bp_metric_decl together_metrics[] = {
	BP_METRIC("*.**.degradation", "percent", LOWER, NONE, TOTAL,
	  "<label>.<figure>: how much worse together than alone, median over rounds",
	  .headline = 1),
	BP_METRIC("*.**.degradation.min", "percent", NONE, NONE, TOTAL,
	  "<label>.<figure>: the least worse round"),
	BP_METRIC("*.**.degradation.max", "percent", NONE, NONE, TOTAL,
	  "<label>.<figure>: the worst round"),
	BP_METRIC("*.**.alone", "=", NONE, NONE, TOTAL,
	  "<label>.<figure>: the test's figure alone, median over rounds"),
	BP_METRIC("*.**.together", "=", NONE, NONE, TOTAL,
	  "<label>.<figure>: the test's figure while all ran at once, median over rounds",
	  .headline = 2),
	BP_METRIC("round", "count", NONE, NONE, INTERVAL,
	  "the round an interval line is of"),
	BP_METRIC("*.**", "=", NONE, NONE, INTERVAL,
	  "<label>.<figure>: the test's own interval figure"),
};

/* The kind of the test labelled label[0..len) among r's children, or NULL. */
static const struct bp_kind *labelled(const struct bp_result *r, const char *label, size_t len)
{
	for (size_t i = 0; i < r->nchildren; i++) {
		const struct bp_result *c = r->children[i];
		const char *l = json_string_value(json_object_get(
			json_object_get(c->params, "together"), "label"));

		if (l && strlen(l) == len && !memcmp(l, label, len))
			return c->test ? bp_kind_find(c->test) : NULL;
	}
	return NULL;
}

/*
 * name is "<label>.<figure><suffix>", suffix what d's pattern has after "**" (".alone",
 * ".together" or none): the figure's unit in the labelled test's kind, its headline
 * latency's median in ns (together_report.c takes it where a kind's headline has one).
 */
static const char *borrowed_unit(const struct bp_result *r, const char *name,
				 const struct bp_metric_decl *d)
{
	const char *dot = strchr(name, '.'), *stars = strstr(d->name, "**");
	size_t suffix = stars ? strlen(stars + 2) : 0, n = strlen(name);
	const struct bp_kind *k;
	const struct bp_metric_decl *fd;
	char figure[128];

	if (!dot || !stars || n < suffix || (size_t)(dot + 1 - name) + suffix >= n)
		return NULL;
	k = labelled(r, name, (size_t)(dot - name));
	snprintf(figure, sizeof(figure), "%.*s", (int)(n - suffix - (size_t)(dot + 1 - name)),
		 dot + 1);
	if (!k)
		return NULL;
	fd = bp_kind_metric(k, figure);
	if (fd)
		return fd->unit;
	if (k->headline_latency && !strncmp(figure, k->headline_latency,
					    strlen(k->headline_latency)) &&
	    !strcmp(figure + strlen(k->headline_latency), ".p50"))
		return "ns";
	return NULL;
}

const struct bp_kind bp_kind_together = {
	.name = "together",
	BP_KIND_CATALOGUE(together_metrics),
	.borrowed_unit = borrowed_unit,
};
