/*
 * Fuzz target for result documents from files (bp_store_doc_parse, src/store/store_doc.c),
 * as import, compare and report read them, then saved as import saves them.
 *
 * A refusal must be one line; an accepted document must be accepted again once written
 * back, and must save into the database and read back the same (an in-memory one: the save's reading of label,
 * board, times and metrics is what is fuzzed, not the disk).
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "store/store.h"
#include "store/store_doc.h"

static struct bp_store *store;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512] = "";
	json_t *doc = bp_store_doc_parse((const char *)data, size, err, sizeof(err)), *again, *stored;
	char *text;
	int64_t id;

	if (!doc) {
		if (!err[0] || strchr(err, '\n'))
			abort();
		return 0;
	}
	text = json_dumps(doc, JSON_COMPACT);
	if (!text)
		abort();
	again = bp_store_doc_parse(text, strlen(text), err, sizeof(err));
	if (!again || !json_equal(doc, again))
		abort();
	if (!store)
		store = bp_store_open(":memory:", true, err, sizeof(err));
	if (!store || bp_store_save(store, doc, &id, err, sizeof(err)))
		abort();
	stored = bp_store_get(store, id);
	if (!stored || !json_equal(stored, doc))
		abort();
	json_decref(stored);
	(void)bp_store_doc_time(doc);
	free(text);
	json_decref(again);
	json_decref(doc);
	return 0;
}
