/*
 * Fuzz target for the HTML report (src/report, its charts through src/svg): a result
 * document as a file another board wrote would hold it, drawn alone and beside itself
 * (every chart with two series, and the compare table). Whatever the document holds, the
 * page is written or the document refused with one line; a chart that cannot be drawn is a
 * note in the page, never a crash, an endless loop or a NaN on an axis.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "fuzz.h"
#include "report/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;
	json_error_t e;
	json_t *doc = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, &e);
	struct bp_report_run runs[2];
	char err[256];
	int rc;

	if (!sink)
		sink = fopen("/dev/null", "w");
	if (!doc || !sink) {
		json_decref(doc);
		return 0;
	}
	runs[0] = (struct bp_report_run){ "a", doc };
	runs[1] = (struct bp_report_run){ "b <&>", doc };
	for (size_t n = 1; n <= 2; n++) {
		err[0] = '\0';
		rc = bp_report_write(sink, runs, n, err, sizeof(err));
		if (rc && (rc != -EINVAL || !err[0] || strchr(err, '\n')))
			abort();
	}
	json_decref(doc);
	return 0;
}
