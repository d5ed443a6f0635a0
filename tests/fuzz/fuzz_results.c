/*
 * Fuzz target for the results a server sends (bp_net_results_from_json, src/proto/results.c
 * and results_streams.c), read as the client reads them (the control decoder's JSON rules).
 *
 * Accepted results are summed as the report sums them (UBSan catches an overflow), written
 * back (to_json) and must be accepted again; a refusal's line must be one line.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "proto/control.h"
#include "proto/results.h"
#include "proto/results_streams.h"

static struct bp_net_results r, again;

static void sums(const struct bp_net_results *x)
{
	volatile double sink = 0;

	for (int s = 0; s < 2; s++) {
		sink += (double)bp_net_results_bytes(x, s) + bp_net_results_seconds(x, s) +
			(double)bp_net_results_packets(x, s);
	}
	sink += (double)bp_net_results_retransmits(x) + (double)bp_net_results_lost(x) +
		(double)bp_net_results_kernel_drops(x) + (double)bp_net_results_stalls(x) +
		(double)bp_net_results_out_of_order(x) + (double)bp_net_results_duplicates(x) +
		bp_net_results_jitter_ns(x);
	for (int k = 0; k < x->stream_ivs.nintervals; k++)
		for (int i = 0; i < x->nstreams; i++)
			if (!bp_net_stream_interval_at(x, k, i))
				abort();
	(void)sink;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *j = NULL, *back;
	char err[256];

	/* only what the control protocol would hand over: a JSON object */
	if (bp_proto_parse_json((const char *)data, size, &j))
		return 0;
	if (bp_net_results_from_json(j, &r, err, sizeof(err))) {
		if (!err[0] || strchr(err, '\n'))
			abort();
		json_decref(j);
		return 0;
	}
	sums(&r);
	bp_net_results_mirror_roles(&r, &r);
	back = bp_net_results_to_json(&r);
	if (!back || bp_net_results_from_json(back, &again, err, sizeof(err)) ||
	    again.nstreams != r.nstreams || again.nintervals != r.nintervals ||
	    bp_net_results_bytes(&again, true) != bp_net_results_bytes(&r, true))
		abort();
	json_decref(back);
	json_decref(j);
	return 0;
}
