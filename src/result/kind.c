#include "result/kind.h"

#include <string.h>

static const struct bp_kind *const *installed;
static size_t ninstalled;

void bp_kinds_install(const struct bp_kind *const *kinds, size_t n)
{
	installed = n ? kinds : NULL;
	ninstalled = installed ? n : 0;
}

const struct bp_kind *bp_kind_find(const char *name)
{
	for (size_t i = 0; name && i < ninstalled; i++)
		if (installed[i] && !strcmp(installed[i]->name, name))
			return installed[i];
	return NULL;
}

const struct bp_kind *const *bp_kinds_installed(size_t *n)
{
	*n = ninstalled;
	return installed;
}

/* Length of the segment starting at s: up to the next dot or the end. */
static size_t segment_len(const char *s)
{
	const char *dot = strchr(s, '.');

	return dot ? (size_t)(dot - s) : strlen(s);
}

/* "**" then rest ("" or ".more"): name's first one or more segments, then rest matches. */
static bool segments_then(const char *rest, const char *name)
{
	for (;;) {
		size_t len = segment_len(name);

		if (!len)
			return false;
		name += len;
		if (!*rest && !*name)
			return true;
		if (*rest && *name && bp_metric_pattern_matches(rest + 1, name + 1))
			return true;
		if (!*name)
			return false;
		name++;
	}
}

bool bp_metric_pattern_matches(const char *pattern, const char *name)
{
	if (!pattern || !name)
		return false;
	for (;;) {
		size_t plen = segment_len(pattern), nlen = segment_len(name);

		if (plen == 2 && !memcmp(pattern, "**", 2))
			return segments_then(pattern + 2, name);
		if (plen == 1 && pattern[0] == '*') {
			if (nlen == 0)
				return false;
		} else if (plen != nlen || memcmp(pattern, name, plen)) {
			return false;
		}
		pattern += plen;
		name += nlen;
		if (!*pattern || !*name)
			return !*pattern && !*name;
		pattern++;  /* both are at a dot */
		name++;
	}
}

/* name without its up./down. prefix, or NULL when it has none. */
static const char *undirected(const char *name)
{
	if (!strncmp(name, "up.", 3))
		return name + 3;
	if (!strncmp(name, "down.", 5))
		return name + 5;
	return NULL;
}

const struct bp_metric_decl *bp_kind_metric(const struct bp_kind *k, const char *name)
{
	const char *bare = name ? undirected(name) : NULL;

	for (size_t i = 0; k && name && i < k->nmetrics; i++) {
		const struct bp_metric_decl *d = &k->metrics[i];

		if (bp_metric_pattern_matches(d->name, name))
			return d;
		if (d->directed && bare && bp_metric_pattern_matches(d->name, bare))
			return d;
	}
	return NULL;
}

const char *bp_combine_name(enum bp_combine combine)
{
	switch (combine) {
	case BP_COMBINE_SUM: return "sum";
	case BP_COMBINE_MEAN: return "mean";
	case BP_COMBINE_MAX: return "max";
	case BP_COMBINE_MIN: return "min";
	case BP_COMBINE_HISTOGRAM: return "histogram";
	case BP_COMBINE_NONE: break;
	}
	return "none";
}

const char *bp_scope_name(enum bp_metric_scope scope)
{
	switch (scope) {
	case BP_SCOPE_TOTAL: return "total";
	case BP_SCOPE_INTERVAL: return "interval";
	case BP_SCOPE_BOTH: break;
	}
	return "both";
}

bool bp_unit_is_base(const char *unit)
{
	/* docs/json.md's list, and what the tests emit besides: packets, round trips per
	 * minute, counts, and gpio's read-backs ("op"). */
	static const char *const base[] = {
		"bit/s", "B/s", "op/s", "Hz", "ns", "B", "percent",
		"pkt/s", "rpm", "count", "op",
	};

	for (size_t i = 0; unit && i < sizeof(base) / sizeof(base[0]); i++)
		if (!strcmp(base[i], unit))
			return true;
	return false;
}
