/*
 * Fuzz target for result documents read back into the model (src/result/result_doc.c):
 * `together` reads each child process's document this way. A document either is refused
 * with a reason or becomes a result that renders (text, JSON, CSV) and, rendered as JSON
 * and read again, gives the same document: what a child printed is what the suite keeps.
 * A latency's histogram (result/latency_histogram.h) is restored or refused with a reason,
 * and the document merged with itself (src/merge/) renders or is refused with one: merge
 * reads testers' documents from other boards.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/kinds.h"
#include "fuzz.h"
#include "merge/merge.h"
#include "result/latency_histogram.h"
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

/* Each histogram restored, or refused with a reason; the document merged with itself. */
static void histograms_and_merge(const struct bp_result *r, const json_t *doc)
{
	const struct bp_merge_input in[2] = {
		{ .name = "a", .source = "a.json", .doc = doc },
		{ .name = "b", .source = "b.json", .doc = doc },
	};
	struct bp_result *m = bp_result_new("merge");
	char err[256];

	for (size_t i = 0; i < r->nlatency; i++) {
		struct bp_histo *h;

		if (!r->latency[i].histogram)
			continue;
		err[0] = '\0';
		h = bp_latency_histogram_load(&r->latency[i], err, sizeof(err));
		if (!h && !err[0])
			abort();
		bp_histo_free(h);
	}
	err[0] = '\0';
	if (m && bp_merge_build(in, 2, m, err, sizeof(err)) && !err[0])
		abort();  /* refused or incomplete without a reason */
	if (m)
		render_all(m);
	bp_result_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *doc = json_loadb((const char *)data, size, 0, NULL), *again;
	char err[256] = "", *a, *b = NULL;
	struct bp_result *r, *r2;
	static bool kinds;

	if (!kinds) {  /* merge combines by the kinds' catalogues, as boardperf installs them */
		install_all_kinds();
		kinds = true;
	}
	r = doc ? bp_result_from_json(doc, err, sizeof(err)) : NULL;
	if (!r) {
		if (doc && !err[0])
			abort();  /* refused without a reason */
		json_decref(doc);
		return 0;
	}
	histograms_and_merge(r, doc);
	json_decref(doc);
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
