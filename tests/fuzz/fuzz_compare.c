/*
 * Fuzz target for compare (src/compare): documents of any shape, as files from other
 * boards reach it, built into a comparison and rendered in every format. The input is one
 * JSON value: an array of 2..16 documents, or a single document compared with itself.
 *
 * A refusal must be one line; a built comparison must render in all five formats, and its
 * JSON must read back as JSON.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "compare/compare.h"
#include "fuzz.h"

static void render_all(const struct bp_compare *c)
{
	for (int f = BP_COMPARE_TEXT; f <= BP_COMPARE_JSON; f++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *out = open_memstream(&buf, &len);

		if (!out)
			abort();
		if (bp_compare_render(c, (enum bp_compare_format)f, out))
			abort();
		fclose(out);
		if (f == BP_COMPARE_JSON) {
			json_t *back = json_loadb(buf, len, 0, NULL);

			if (!back)
				abort();
			json_decref(back);
		}
		free(buf);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *v = json_loadb((const char *)data, size, JSON_DECODE_ANY, NULL);
	json_t *docs[16];
	const char *names[16] = { "a", "b|<c>", NULL, "a" };
	size_t n;
	char err[512] = "";
	struct bp_compare *c;

	if (!v)
		return 0;
	if (json_is_array(v) && json_array_size(v) >= 2 && json_array_size(v) <= 16) {
		n = json_array_size(v);
		for (size_t i = 0; i < n; i++)
			docs[i] = json_array_get(v, i);
	} else {
		n = 2;
		docs[0] = docs[1] = v;
	}
	c = bp_compare_build(docs, names, n, err, sizeof(err));
	if (!c && (!err[0] || strchr(err, '\n')))
		abort();
	if (c)
		render_all(c);
	bp_compare_free(c);
	json_decref(v);
	return 0;
}
