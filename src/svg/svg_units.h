/*
 * Units on chart labels: a result's base unit ("bit/s", "ns", "B/s", "percent", "count")
 * shown with the prefix that suits the figure, as a reader expects it: network rates in
 * decimal prefixes (Gbit/s), sizes and storage rates in binary ones (MiB/s, as the text
 * output), durations in seconds with SI prefixes (ns become µs or ms), percent as %.
 */
#ifndef BP_SVG_SVG_UNITS_H
#define BP_SVG_SVG_UNITS_H

#include <stdbool.h>
#include <stddef.h>

struct bp_svg_unit {
	const char *base;   /* printed after the prefix: "bit/s", "s", "B", "%", "" */
	double to_base;     /* a raw value times this is in base ("ns": 1e-9) */
	bool binary;        /* prefixes of 1024: Ki, Mi, Gi */
	bool prefixes;      /* false: never a prefix (percent) */
};

/* The display of a result's unit; an unknown unit is shown as it is, with SI prefixes. */
void bp_svg_unit_of(const char *unit, struct bp_svg_unit *u);

/* The prefix for figures up to max (in base units, >= 0): its factor (1000^k or 1024^k,
 * 1 without) and its name ("", "k", "µ", "Mi") in *name. */
double bp_svg_prefix(const struct bp_svg_unit *u, double max, const char **name);

/* v (already divided by the prefix's factor) with decimals, the prefix and the unit:
 * "2.5 Gbit/s", "40 %", "0" (zero has no unit to read), "12 k" for a count. */
void bp_svg_format_scaled(char *buf, size_t len, const struct bp_svg_unit *u, double v,
			  int decimals, const char *prefix);

/* A raw value in its own best prefix with three significant digits: "1.50 µs" for 1500 ns
 * in unit "ns", "4 KiB" for 4096 in "B". */
void bp_svg_format_value(char *buf, size_t len, const char *unit, double raw);

#endif
