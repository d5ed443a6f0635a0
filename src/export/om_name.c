#include "export/om_name.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "result/kind.h"

static const struct {
	const char *unit, *om;
	double scale;
} units[] = {
	{ "bit/s", "bytes_per_second", 1.0 / 8 },
	{ "B/s", "bytes_per_second", 1 },
	{ "B", "bytes", 1 },
	{ "ns", "seconds", 1e-9 },
	{ "s", "seconds", 1 },
	{ "percent", "ratio", 0.01 },
	{ "op/s", "operations_per_second", 1 },
	{ "pkt/s", "packets_per_second", 1 },
	{ "Hz", "hertz", 1 },
	{ "op", "operations", 1 },
	{ "count", "", 1 },
};

static const char *const reserved_suffixes[] = {
	"_total", "_count", "_sum", "_bucket", "_created", "_info",
};

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static bool is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static bool all_digits(const char *s, size_t len)
{
	if (!len)
		return false;
	for (size_t i = 0; i < len; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

/* Digits, or (binary) digits and a binary multiple: "16", "16KiB". */
static bool size_text(const char *s, size_t len, bool binary)
{
	if (binary && len > 3 && (!memcmp(s + len - 3, "KiB", 3) ||
				  !memcmp(s + len - 3, "MiB", 3) || !memcmp(s + len - 3, "GiB", 3)))
		len -= 3;
	return all_digits(s, len);
}

/*
 * The rule by which the part s[0..len) becomes a label in a result of test: its kind's
 * (result/kind.h, label parts), or NULL.
 */
static const struct bp_label_part *part_rule(const char *test, const char *s, size_t len)
{
	const struct bp_kind *k = test ? bp_kind_find(test) : NULL;

	for (size_t i = 0; k && i < k->nlabel_parts; i++) {
		const struct bp_label_part *r = &k->label_parts[i];
		size_t pl = strlen(r->prefix);

		if (len > pl && !memcmp(s, r->prefix, pl) && size_text(s + pl, len - pl, r->binary))
			return r;
	}
	return NULL;
}

/* Appends s[0..len) with every run of other characters as one '_'; false when full. */
static bool append_part(char *out, size_t *o, size_t cap, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		/* snake_case: promtool reads capitals as camelCase. */
		char c = is_alnum(s[i]) ? lower(s[i]) : '_';

		if (c == '_' && (*o == 0 || out[*o - 1] == '_'))
			continue;
		if (*o + 1 >= cap)
			return false;
		out[(*o)++] = c;
	}
	out[*o] = '\0';
	return true;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* Whether body already ends in the unit as a word of its own ("receiver_bytes"). */
static bool has_unit(const char *body, const char *unit)
{
	size_t n = strlen(body), m = strlen(unit);

	return !m || !strcmp(body, unit) || (n > m && body[n - m - 1] == '_' &&
					     !strcmp(body + n - m, unit));
}

int bp_om_name_of(const char *test, const char *metric, const char *unit,
		  struct bp_om_name *n)
{
	char body[BP_OM_NAME_MAX] = "";
	size_t o = 0;
	const char *p = metric;

	*n = (struct bp_om_name){ .unit = "", .scale = 1 };
	for (size_t i = 0; unit && i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(unit, units[i].unit)) {
			n->unit = units[i].om;
			n->scale = units[i].scale;
		}
	while (p && *p) {
		const char *dot = strchr(p, '.');
		size_t len = dot ? (size_t)(dot - p) : strlen(p);
		const struct bp_label_part *rule = n->label ? NULL : part_rule(test, p, len);

		if (rule && len - strlen(rule->prefix) < sizeof(n->label_value)) {
			size_t pl = strlen(rule->prefix);

			n->label = rule->label;
			n->part_off = (size_t)(p - metric);
			n->part_len = len;
			snprintf(n->label_value, sizeof(n->label_value), "%.*s", (int)(len - pl),
				 p + pl);
		} else {
			if (o && body[o - 1] != '_' && o + 1 < sizeof(body))
				body[o++] = '_';
			if (!append_part(body, &o, sizeof(body), p, len))
				return -EINVAL;
		}
		p = dot ? dot + 1 : NULL;
	}
	while (o && body[o - 1] == '_')
		body[--o] = '\0';
	if (!o)
		return -EINVAL;
	if (snprintf(n->family, sizeof(n->family), "boardperf_%s%s%s", body,
		     has_unit(body, n->unit) ? "" : "_", has_unit(body, n->unit) ? "" : n->unit) >=
	    (int)sizeof(n->family))
		return -EINVAL;
	for (size_t i = 0; i < sizeof(reserved_suffixes) / sizeof(reserved_suffixes[0]); i++)
		if (ends_with(n->family, reserved_suffixes[i])) {
			if (strlen(n->family) + 6 >= sizeof(n->family))
				return -EINVAL;
			strcat(n->family, "_value");
			break;
		}
	return 0;
}
