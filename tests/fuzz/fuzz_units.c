/*
 * Fuzz target for the unit parsers and formatters (src/core/units.c): every option value
 * (rates, sizes, durations, counts) goes through them. Each parse of the input must either
 * refuse it or give a value the formatters print as a terminated string.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"
#include "fuzz.h"

static void printed(const char *s, const char *buf, size_t len)
{
	if (!s || !memchr(buf, 0, len))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), buf[64];
	uint64_t u;
	int64_t i;
	double d;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (!bp_parse_int(text, &i))
		printed(bp_format_count(buf, sizeof(buf), (double)i), buf, sizeof(buf));
	if (!bp_parse_number(text, &d)) {
		if (!isfinite(d))
			abort();
		printed(bp_format_value(buf, sizeof(buf), d, "B"), buf, sizeof(buf));
	}
	if (!bp_parse_rate(text, &d)) {
		if (!isfinite(d) || d < 0)
			abort();
		printed(bp_format_rate(buf, sizeof(buf), d), buf, sizeof(buf));
	}
	if (!bp_parse_size(text, &u))
		printed(bp_format_bytes(buf, sizeof(buf), (double)u), buf, sizeof(buf));
	if (!bp_parse_duration(text, &u))
		printed(bp_format_duration(buf, sizeof(buf), (double)u), buf, sizeof(buf));
	free(text);
	return 0;
}
