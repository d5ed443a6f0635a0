/*
 * Fuzz target for result documents read back into the model (src/result/result_doc.c):
 * `together` reads each child process's document this way. A document either is refused
 * with a reason or becomes a result that renders (text, JSON, CSV) and, rendered as JSON
 * and read again, gives the same document: what a child printed is what the suite keeps.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "result/render.h"
#include "result/result_doc.h"

static char *dump(const struct bp_result *r)
{
	json_t *j = bp_result_to_json(r);
	char *s = j ? json_dumps(j, JSON_PRESERVE_ORDER | JSON_COMPACT) : NULL;

	json_decref(j);
	return s;
}

static void render_all(const struct bp_result *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return;
	bp_render(f, r, BP_FORMAT_TEXT);
	bp_render(f, r, BP_FORMAT_CSV);
	fclose(f);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *doc = json_loadb((const char *)data, size, 0, NULL), *again;
	char err[256] = "", *a, *b = NULL;
	struct bp_result *r = doc ? bp_result_from_json(doc, err, sizeof(err)) : NULL, *r2;

	json_decref(doc);
	if (!r) {
		if (doc && !err[0])
			abort();  /* refused without a reason */
		return 0;
	}
	render_all(r);
	a = dump(r);
	again = a ? json_loads(a, 0, NULL) : NULL;
	r2 = again ? bp_result_from_json(again, err, sizeof(err)) : NULL;
	if (a && !r2)
		abort();  /* what the model rendered must read back */
	if (r2)
		b = dump(r2);
	if (a && b && strcmp(a, b))
		abort();
	free(a);
	free(b);
	json_decref(again);
	bp_result_free(r);
	bp_result_free(r2);
	return 0;
}
