#include "core/units.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"

const char *bp_units_expected(enum bp_unit_kind kind)
{
	switch (kind) {
	case BP_UNIT_INT:
		return "an integer such as 4";
	case BP_UNIT_NUMBER:
		return "a number such as 2.5";
	case BP_UNIT_RATE:
		return "a rate in bit/s such as 100M, 1.5G or 64k";
	case BP_UNIT_SIZE:
		return "a size in bytes such as 4096, 16K, 1G or 1GiB";
	case BP_UNIT_DURATION:
		return "a duration such as 10, 10s, 500ms or 2m";
	}
	return "a value";
}

/*
 * A finite, non-negative decimal number at the start of text. strtod alone would also
 * take "inf", "nan", hex floats and leading spaces, none of which a user means here.
 */
static int parse_leading_number(const char *text, double *out, const char **rest)
{
	const char *p = text;
	char *end;

	if (!isdigit((unsigned char)*p) && !(*p == '.' && isdigit((unsigned char)p[1])))
		return *p == '-' ? -ERANGE : -EINVAL;
	while (isdigit((unsigned char)*p) || *p == '.')
		p++;
	errno = 0;
	*out = strtod(text, &end);
	/* strtod would also read an exponent or a hex float ("0x10"); users mean neither. */
	if (end != p)
		return -EINVAL;
	if (errno == ERANGE || !isfinite(*out))
		return -ERANGE;
	*rest = end;
	return 0;
}

int bp_parse_int(const char *text, int64_t *out)
{
	char *end;
	long long v;

	if (!text || !*text || isspace((unsigned char)*text))
		return -EINVAL;
	errno = 0;
	v = strtoll(text, &end, 10);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE)
		return -ERANGE;
	*out = v;
	return 0;
}

int bp_parse_number(const char *text, double *out)
{
	const char *rest;
	int neg = text && *text == '-';
	int rc;

	if (!text)
		return -EINVAL;
	rc = parse_leading_number(text + neg, out, &rest);
	if (rc)
		return rc;
	if (*rest)
		return -EINVAL;
	if (neg)
		*out = -*out;
	return 0;
}

/* Decimal multipliers for rates, as iperf3's unit_atof_rate reads them. */
static double rate_multiplier(char c)
{
	switch (c) {
	case 'k': case 'K': return 1e3;
	case 'm': case 'M': return 1e6;
	case 'g': case 'G': return 1e9;
	case 't': case 'T': return 1e12;
	}
	return 0;
}

int bp_parse_rate(const char *text, double *bits_per_sec)
{
	const char *rest;
	double v, mult = 1;
	int rc;

	if (!text)
		return -EINVAL;
	rc = parse_leading_number(text, &v, &rest);
	if (rc)
		return rc;
	if (*rest) {
		mult = rate_multiplier(*rest);
		if (!mult || rest[1])
			return -EINVAL;
	}
	v *= mult;
	if (!isfinite(v) || v > 1e15) /* a petabit per second: beyond any link here */
		return -ERANGE;
	*bits_per_sec = v;
	return 0;
}

static int size_shift(char c)
{
	switch (c) {
	case 'k': case 'K': return 10;
	case 'm': case 'M': return 20;
	case 'g': case 'G': return 30;
	case 't': case 'T': return 40;
	case 'p': case 'P': return 50;
	}
	return -1;
}

int bp_parse_size(const char *text, uint64_t *bytes)
{
	const char *rest;
	double v, scaled;
	int shift = 0, rc;

	if (!text)
		return -EINVAL;
	rc = parse_leading_number(text, &v, &rest);
	if (rc)
		return rc;
	if (*rest && *rest != 'B' && *rest != 'b') {
		shift = size_shift(*rest++);
		if (shift < 0)
			return -EINVAL;
		if (*rest == 'i')
			rest++;
	}
	if (*rest == 'B' || *rest == 'b')
		rest++;
	if (*rest)
		return -EINVAL;
	scaled = ldexp(v, shift);
	/* 2^63 leaves headroom for arithmetic on sizes; nothing a board holds comes near. */
	if (scaled >= 0x1p63)
		return -ERANGE;
	/* A fraction of a byte is a typo, not a size ("1.5" bytes). */
	if (scaled != floor(scaled))
		return -EINVAL;
	*bytes = (uint64_t)scaled;
	return 0;
}

int bp_parse_duration(const char *text, uint64_t *ns)
{
	static const struct { const char *suffix; double ns; } units[] = {
		{ "", 1e9 }, { "s", 1e9 }, { "ms", 1e6 }, { "us", 1e3 }, { "ns", 1 },
		{ "m", 60e9 }, { "min", 60e9 }, { "h", 3600e9 },
	};
	const char *rest;
	double v;
	int rc;

	if (!text)
		return -EINVAL;
	rc = parse_leading_number(text, &v, &rest);
	if (rc)
		return rc;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(rest, units[i].suffix))
			continue;
		v *= units[i].ns;
		/* Over a year is a mistake; it also keeps the sum with now() far from overflow. */
		if (v > 365.0 * 86400e9)
			return -ERANGE;
		*ns = (uint64_t)llround(v);
		return 0;
	}
	return -EINVAL;
}

/* Three significant digits: "94.1", "512", "1.50". */
static void format_sig3(char *buf, size_t len, double v, const char *suffix)
{
	double a = fabs(v);
	int decimals = a >= 99.95 ? 0 : a >= 9.995 ? 1 : 2;

	if (a == 0)
		decimals = 0;
	snprintf(buf, len, "%.*f%s", decimals, v, suffix);
}

static char *format_scaled(char *buf, size_t len, double v, double base,
			   const char *const *prefixes, size_t nprefixes, const char *sep,
			   const char *unit)
{
	size_t i = 0;
	char suffix[32];

	/* Move up a prefix only once rounding would reach the next step. */
	while (i + 1 < nprefixes && fabs(v) >= base * 0.9995) {
		v /= base;
		i++;
	}
	snprintf(suffix, sizeof(suffix), "%s%s%s", sep, prefixes[i], unit);
	/* Whole numbers of the base unit ("512 B", "158 op/s") need no decimals. */
	if (i == 0 && v == floor(v))
		snprintf(buf, len, "%.0f%s", v, suffix);
	else
		format_sig3(buf, len, v, suffix);
	return buf;
}

char *bp_format_rate(char *buf, size_t len, double bits_per_sec)
{
	static const char *const p[] = { "", "k", "M", "G", "T" };

	return format_scaled(buf, len, bits_per_sec, 1e3, p, 5, " ", "bit/s");
}

char *bp_format_bytes(char *buf, size_t len, double bytes)
{
	static const char *const p[] = { "", "Ki", "Mi", "Gi", "Ti", "Pi" };

	return format_scaled(buf, len, bytes, 1024, p, 6, " ", "B");
}

char *bp_format_byte_rate(char *buf, size_t len, double bytes_per_sec)
{
	static const char *const p[] = { "", "Ki", "Mi", "Gi", "Ti" };

	return format_scaled(buf, len, bytes_per_sec, 1024, p, 5, " ", "B/s");
}

char *bp_format_count(char *buf, size_t len, double count)
{
	static const char *const p[] = { "", "k", "M", "G", "T" };
	/* "1.49M": a bare count keeps its prefix next to the number. */
	return format_scaled(buf, len, count, 1e3, p, 5, "", "");
}

char *bp_format_duration(char *buf, size_t len, double ns)
{
	static const struct { double scale; const char *unit; } steps[] = {
		{ 1, "ns" }, { 1e3, "us" }, { 1e6, "ms" }, { 1e9, "s" },
	};
	size_t i = 0;

	while (i + 1 < 4 && fabs(ns) >= steps[i + 1].scale * 0.9995)
		i++;
	if (i == 0 && ns == floor(ns)) {
		snprintf(buf, len, "%.0f ns", ns);
		return buf;
	}
	char suffix[8];

	snprintf(suffix, sizeof(suffix), " %s", steps[i].unit);
	format_sig3(buf, len, ns / steps[i].scale, suffix);
	return buf;
}

/*
 * A figure in bytes. A whole number below 10 KiB is a size someone chose or a protocol fixed
 * (a 1518-byte frame, up to a 9216-byte jumbo one; a 64-byte request) and reads as given:
 * "1518 B", never "1.48 KiB", which no one typed and which hides the exact size. Five digits
 * at most, no longer than three significant ones and a prefix. Larger or fractional amounts
 * (bytes moved, a mean) are measurements: three significant digits, binary prefixes.
 */
static char *format_byte_figure(char *buf, size_t len, double bytes)
{
	if (bytes == floor(bytes) && fabs(bytes) < BP_EXACT_BYTES_BELOW) {
		snprintf(buf, len, "%.0f B", bytes);
		return buf;
	}
	return bp_format_bytes(buf, len, bytes);
}

char *bp_format_value(char *buf, size_t len, double value, const char *unit)
{
	if (isnan(value)) {
		snprintf(buf, len, "n/a");
		return buf;
	}
	if (!unit)
		unit = "";
	if (!strcmp(unit, "bit/s"))
		return bp_format_rate(buf, len, value);
	if (!strcmp(unit, "B"))
		return format_byte_figure(buf, len, value);
	if (!strcmp(unit, "B/s"))
		return bp_format_byte_rate(buf, len, value);
	if (!strcmp(unit, "ns"))
		return bp_format_duration(buf, len, value);
	if (!strcmp(unit, "percent")) {
		snprintf(buf, len, "%.2f %%", value);
		return buf;
	}
	if (!strcmp(unit, "count") || !*unit) {
		if (value == floor(value) && fabs(value) < 1e15)
			snprintf(buf, len, "%.0f", value);
		else
			format_sig3(buf, len, value, "");
		return buf;
	}
	/* op/s, pkt/s, conn/s, ...: a scaled count with the unit after it. */
	char num[48];

	bp_format_count(num, sizeof(num), value);
	snprintf(buf, len, "%s %s", num, unit);
	return buf;
}
