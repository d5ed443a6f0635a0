/*
 * A gpio result with several methods renders side by side (result/text_methods.c): one
 * column per method, one row per figure; with one method (and the loop) the plain list.
 * gpio's kind says so (its figures' text, result/kind.h); no other kind's result does it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "kinds.h"
#include "result/render.h"
#include "result/result.h"
#include "result/text_methods.h"
#include "tap.h"

static char *render(const struct bp_result *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	bp_render_text(f, r);
	fclose(f);
	return buf;
}

int main(void)
{
	struct bp_result *r = bp_result_new("gpio");
	char *text;

	install_all_kinds();
	bp_result_add_metric(r, "loop.write.mean", 2, "ns", BP_BETTER_LOWER);
	bp_result_add_metric(r, "chardev.periods.rate", 250000, "Hz", BP_BETTER_HIGHER);
	bp_result_add_metric(r, "chardev.write.mean", 2000, "ns", BP_BETTER_LOWER);
	CHECK(!bp_text_methods_applies(r));  /* loop and one method: the plain list */
	bp_result_add_metric(r, "sysfs.periods.rate", 50000, "Hz", BP_BETTER_HIGHER);
	bp_result_add_metric(r, "sysfs.write.mean", 10000, "ns", BP_BETTER_LOWER);
	CHECK(bp_text_methods_applies(r));
	text = render(r);
	CHECK(text != NULL);
	if (text) {
		CHECK(strstr(text, "figure") && strstr(text, "loop") && strstr(text, "chardev") &&
		      strstr(text, "sysfs"));
		/* one row holds both methods' rates */
		const char *row = strstr(text, "\nperiods.rate");

		CHECK(row && strstr(row, "250k Hz") && strstr(row, "50.0k Hz") &&
		      strchr(row + 1, '\n') > strstr(row, "50.0k Hz"));
		CHECK(strstr(text, "metric ") == NULL);  /* instead of the list, not beside it */
	}
	free(text);
	/* at 80 columns (issue 33: gpio's text has no chip to run on here) no line is wider,
	 * the header of a Raspberry Pi 3's run included (83 columns on the emulated board) */
	bp_result_set_env(r, json_pack("{s:{s:{s:s}, s:{s:s}, s:{s:s}}, s:{s:s}}", "inventory",
				       "board", "model", "Raspberry Pi 3 Model B", "cpu", "summary",
				       "4x Cortex-A53", "os", "kernel_release", "6.1.0-50-arm64",
				       "boardperf", "version", "0.1.0"));
	bp_result_set_text_layout(r, 0, 80);
	text = render(r);
	CHECK(text != NULL);
	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);

		if (len > 80)
			CHECK_STR(line, "a line of at most 80 columns");
		line = nl ? nl + 1 : NULL;
	}
	CHECK(text && strstr(text, "gpio: Raspberry Pi 3 Model B, 4x Cortex-A53, kernel "
			      "6.1.0-50-arm64,\n  boardperf 0.1.0\n"));
	free(text);
	bp_result_free(r);
	/* another kind's figures of the same shape: the plain list (the layout is gpio's) */
	r = bp_result_new("mem");
	bp_result_add_metric(r, "a.x", 1, "ns", BP_BETTER_LOWER);
	bp_result_add_metric(r, "b.x", 1, "ns", BP_BETTER_LOWER);
	bp_result_add_metric(r, "c.x", 1, "ns", BP_BETTER_LOWER);
	text = render(r);
	CHECK(text && strstr(text, "metric ") && !strstr(text, "figure"));
	free(text);
	bp_result_free(r);
	return tap_done();
}
