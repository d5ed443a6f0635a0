#include "result/text_monitor.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "result/text_brief.h"
#include "result/text_table.h"

bool bp_text_monitor_has(const struct bp_result *r)
{
	return json_is_object(r->monitor);
}

static const json_t *at(const json_t *o, const char *a, const char *b)
{
	const json_t *v = json_object_get(o, a);

	return b ? json_object_get(v, b) : v;
}

/* kHz as a person reads a clock: "600 MHz", "1.50 GHz". */
static void clock_text(char *buf, size_t len, const json_t *khz)
{
	double v = json_number_value(khz);

	if (!json_is_number(khz))
		snprintf(buf, len, "?");
	else if (v < 1e6)
		snprintf(buf, len, "%.0f MHz", v / 1e3);
	else
		snprintf(buf, len, "%.2f GHz", v / 1e6);
}

static void print_clock(FILE *out, const json_t *m)
{
	char lo[32], hi[32], start[32];

	if (!json_is_number(at(m, "clock_khz", "max"))) {
		fputs("clock unknown", out);
		return;
	}
	clock_text(lo, sizeof(lo), at(m, "clock_khz", "min"));
	clock_text(hi, sizeof(hi), at(m, "clock_khz", "max"));
	clock_text(start, sizeof(start), at(m, "clock_khz", "start"));
	if (!strcmp(lo, hi))
		fprintf(out, "clock %s", hi);
	else
		fprintf(out, "clock %s-%s (fastest core %s at the start)", lo, hi, start);
}

static void print_temp(FILE *out, const json_t *m)
{
	const json_t *start = at(m, "temp_c", "start"), *max = at(m, "temp_c", "max");

	if (!json_is_number(max))
		fputs(", temperature unknown", out);
	else
		fprintf(out, ", %.1f-%.1f °C", json_number_value(start), json_number_value(max));
}

static void print_share(FILE *out, const char *what, const json_t *v)
{
	if (json_is_number(v))
		fprintf(out, ", %s %.1f %%", what, json_number_value(v));
	else
		fprintf(out, ", %s unknown", what);
}

static void print_line(FILE *out, const struct bp_result *r)
{
	const json_t *m = r->monitor, *fw = at(m, "throttled", "end");
	size_t ncpus = json_array_size(json_object_get(m, "cpus"));

	fputs("monitor: ", out);
	print_clock(out, m);
	print_temp(out, m);
	if (json_is_integer(fw))
		fprintf(out, ", get_throttled 0x%llx", (unsigned long long)json_integer_value(fw));
	print_share(out, "other processes", json_object_get(m, "other_percent"));
	print_share(out, "steal", json_object_get(m, "steal_percent"));
	fprintf(out, " of %zu CPU%s (%lld samples)", ncpus, ncpus == 1 ? "" : "s",
		(long long)json_integer_value(json_object_get(m, "samples")));
}

/* The line built whole, then filled to the width. */
int bp_text_monitor_print(FILE *out, const struct bp_result *r)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	int err;

	if (!m)
		return -ENOMEM;
	print_line(m, r);
	err = fclose(m) ? -ENOMEM : bp_text_fill_line(out, r, text);
	free(text);
	return err;
}
