/*
 * The result's per-stream figures (see bp_result.streams) and gpio-list's chips
 * (bp_result.chips): kept as built, in JSON form.
 */
#include "result/result.h"

void bp_result_set_streams(struct bp_result *r, json_t *streams)
{
	json_decref(r->streams);
	r->streams = streams;
}

void bp_result_set_chips(struct bp_result *r, json_t *chips)
{
	json_decref(r->chips);
	r->chips = chips;
}
