#include "svg/svg_units.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const struct {
	const char *unit;
	struct bp_svg_unit show;
} units[] = {
	{ "ns", { "s", 1e-9, false, true } },
	{ "s", { "s", 1, false, true } },
	{ "B", { "B", 1, true, true } },
	{ "B/s", { "B/s", 1, true, true } },
	{ "percent", { "%", 1, false, false } },
	{ "count", { "", 1, false, true } },
};

void bp_svg_unit_of(const char *unit, struct bp_svg_unit *u)
{
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (unit && !strcmp(unit, units[i].unit)) {
			*u = units[i].show;
			return;
		}
	*u = (struct bp_svg_unit){ unit ? unit : "", 1, false, true };
}

/* pico to exa; index 4 is no prefix */
static const char *const si_names[] = { "p", "n", "\xc2\xb5", "m", "", "k", "M", "G", "T",
					"P", "E" };
static const char *const bin_names[] = { "", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei" };

double bp_svg_prefix(const struct bp_svg_unit *u, double max, const char **name)
{
	int k;

	*name = "";
	if (!u->prefixes || !(max > 0) || !isfinite(max))
		return 1;
	if (u->binary) {
		/* below 1 KiB no prefix; a fraction of a byte stays in bytes */
		k = max < 1 ? 0 : (int)floor(log2(max) / 10 + 1e-12);
		k = k > 6 ? 6 : k;
		*name = bin_names[k];
		return pow(1024, k);
	}
	k = (int)floor(log10(max) / 3 + 1e-12);
	k = k < -4 ? -4 : k > 6 ? 6 : k;
	*name = si_names[k + 4];
	return pow(1000, k);
}

void bp_svg_format_scaled(char *buf, size_t len, const struct bp_svg_unit *u, double v,
			  int decimals, const char *prefix)
{
	const char *sep = u->base[0] || prefix[0] ? " " : "";

	if (v == 0) {
		snprintf(buf, len, "0");
		return;
	}
	snprintf(buf, len, "%.*f%s%s%s", decimals, v, sep, prefix, u->base);
}

void bp_svg_format_value(char *buf, size_t len, const char *unit, double raw)
{
	struct bp_svg_unit u;
	const char *prefix;
	double v, f;
	int decimals;

	bp_svg_unit_of(unit, &u);
	v = raw * u.to_base;
	f = bp_svg_prefix(&u, fabs(v), &prefix);
	v /= f;
	/* three significant digits, but a whole number stays whole ("4 KiB", "10 µs"): the
	 * nanoseconds' 1e-9 leaves 10 µs a few ulps off 10 */
	if (fabs(v - round(v)) <= 1e-9 * fabs(v) || fabs(v) >= 100)
		decimals = 0;
	else
		decimals = fabs(v) >= 10 ? 1 : 2;
	bp_svg_format_scaled(buf, len, &u, v, decimals, prefix);
}
