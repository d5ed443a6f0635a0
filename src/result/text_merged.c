/* A merged result's testers in the text: see text_merged.h. */
#include "result/text_merged.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/unconst.h"
#include "result/headline.h"
#include "result/kind.h"
#include "result/render.h"
#include "result/text_brief.h"
#include "result/text_table.h"

bool bp_text_merged_has(const struct bp_result *r)
{
	return json_array_size(json_object_get(r->merged, "testers")) > 0;
}

/* The tester's figure the headline names (a catalogue pattern: its first match), or NULL. */
static const json_t *figure(const json_t *metrics, const char *pattern)
{
	const char *name;
	json_t *v;

	json_object_foreach((json_t *)bp_unconst(metrics), name, v)
		if (bp_metric_pattern_matches(pattern, name))
			return v;
	return NULL;
}

/* The unit of the merged figure of that name, which the tester's shares. */
static const char *unit_of(const struct bp_result *r, const char *pattern)
{
	const struct bp_metric *m = bp_result_find_matching(r, pattern);

	return m ? m->unit : NULL;
}

static int tester_row(struct bp_table *t, const struct bp_result *r, const json_t *tester,
		      const struct bp_headline *h)
{
	const json_t *metrics = json_object_get(tester, "metrics");
	const json_t *start = json_object_get(tester, "start_offset_ms");
	char buf[BP_TEXT_VALUE_LEN];
	size_t col = 3;
	int err = bp_table_add_row(t);

	err = err ? err : bp_table_set(t, 0, json_string_value(json_object_get(tester, "name")));
	err = err ? err : bp_table_set(t, 1, json_is_string(json_object_get(tester, "share")) ?
				       json_string_value(json_object_get(tester, "share")) : "-");
	if (json_is_number(start))
		snprintf(buf, sizeof(buf), "+%.1f ms", json_number_value(start));
	err = err ? err : bp_table_set(t, 2, json_is_number(start) ? buf : "-");
	for (size_t i = 0; !err && h->metrics[i]; i++, col++) {
		const json_t *v = figure(metrics, h->metrics[i]);

		err = bp_table_set(t, col, json_is_number(v) ?
				   bp_text_value(buf, json_number_value(v),
						 unit_of(r, h->metrics[i])) : "-");
	}
	return err;
}

int bp_text_merged_print(FILE *out, const struct bp_result *r)
{
	const json_t *testers = json_object_get(r->merged, "testers"), *tester;
	struct bp_headline hbuf;
	const struct bp_headline *h = bp_headline_of(r->test, &hbuf);
	static const struct bp_headline none = { .metrics = { NULL } };
	struct bp_table t;
	size_t n = 0, i;
	int err;

	h = h ? h : &none;
	while (h->metrics[n])
		n++;
	err = bp_table_init(&t, 3 + n, 0);
	if (err)
		return err;
	t.max_width = (size_t)bp_text_cols(r);
	for (size_t c = 1; c < 3 + n; c++)
		t.right[c] = true;
	{
		const char *head[3 + BP_HEADLINE_METRICS] = { "tester", "share", "start" };

		for (i = 0; i < n; i++)
			head[3 + i] = h->metrics[i];
		err = bp_table_add(&t, head);
	}
	json_array_foreach((json_t *)bp_unconst(testers), i, tester)
		if (!err && !json_is_string(json_object_get(tester, "missing")))
			err = tester_row(&t, r, tester, h);
	err = err ? err : bp_table_print(out, &t);
	bp_table_free(&t);
	/* a tester that gave nothing: named, with why, never left out quietly */
	json_array_foreach((json_t *)bp_unconst(testers), i, tester) {
		const json_t *why = json_object_get(tester, "missing");
		char line[512];

		if (err || !json_is_string(why))
			continue;
		snprintf(line, sizeof(line), "no result from %s: %s",
			 json_string_value(json_object_get(tester, "name")), json_string_value(why));
		err = bp_text_fill_line(out, r, line);
	}
	return err ? err : ferror(out) ? -EIO : 0;
}
