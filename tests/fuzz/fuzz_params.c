/*
 * Fuzz target for the parameters a client sends (bp_net_params_from_json, src/proto/params.c
 * and the checked reader src/proto/peer_json.c), read as the server reads them: the control
 * decoder's JSON rules (a number too large for an integer reads the message again with every
 * number as a double, proto/control.c).
 *
 * Besides crashes and UBSan's overflows it aborts when a refusal's line is not one line of
 * valid UTF-8 (it goes back to the client inside JSON), when accepted parameters break a
 * bound the server relies on, or when what was accepted, written back (to_json), is not
 * accepted again with the same values.
 */
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "fuzz.h"
#include "proto/control.h"
#include "proto/iperf3_error.h"
#include "proto/params.h"
#include "result/kind.h"
#include "rr/rr_metrics.h"
#include "stream/stream_metrics.h"

static void check_refusal(int ie, const char *err)
{
	json_t *s = json_string(err);

	if (!err[0] || strchr(err, '\n') || !s || ie == BP_IE_NONE)
		abort();
	json_decref(s);
}

static void check_bounds(const struct bp_net_params *p)
{
	/* a counted test (-n/-k) may come with "time": 0: the server then sets its own cut */
	if ((p->time_ns < 1 && !p->num_bytes && !p->num_blocks) ||
	    p->time_ns > 86400 * BP_NS_PER_SEC ||
	    p->omit_ns > 3600 * BP_NS_PER_SEC ||
	    (p->interval_ns && p->interval_ns < BP_NS_PER_MS) ||
	    p->interval_ns > 3600 * BP_NS_PER_SEC || p->parallel < 1 || p->parallel > 128 ||
	    p->len < 1 || p->len > (1 << 20) || p->window < 0 || p->window > (1 << 30) ||
	    p->mss < 0 || p->tos < 0 || p->tos > 255 || !(p->bandwidth >= 0) ||
	    !(p->fq_rate >= 0) || p->rr_request < 1 || p->rr_response < 1 ||
	    p->bp_version < 0 || !memchr(p->test, 0, sizeof(p->test)) ||
	    !memchr(p->congestion, 0, sizeof(p->congestion)))
		abort();
}

/* The network kinds, as boardperf installs them: the parameters' shapes come from them. */
static void install_kinds(void)
{
	static const struct bp_kind *const kinds[] = {
		&bp_kind_tcp, &bp_kind_udp, &bp_kind_rr, &bp_kind_crr,
	};
	static int done;

	if (!done++)
		bp_kinds_install(kinds, sizeof(kinds) / sizeof(kinds[0]));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bp_net_params p, q;
	json_t *j = NULL, *back;
	char err[256];
	int ie;

	install_kinds();

	/* only what the control protocol would hand over: a JSON object */
	if (bp_proto_parse_json((const char *)data, size, &j))
		return 0;
	if (bp_net_params_from_json(j, &p, &ie, err, sizeof(err))) {
		check_refusal(ie, err);
		json_decref(j);
		return 0;
	}
	check_bounds(&p);
	back = bp_net_params_to_json(&p);
	/* -n/-k go out with "time": 0, as iperf3's client sends them: the count ends the test */
	if (!back || bp_net_params_from_json(back, &q, &ie, err, sizeof(err)) ||
	    (q.time_ns != p.time_ns && !((p.num_bytes || p.num_blocks) && q.time_ns == 0)) ||
	    q.omit_ns != p.omit_ns || q.parallel != p.parallel || q.len != p.len ||
	    q.shape != p.shape || q.sctp != p.sctp || strcmp(q.test, p.test) ||
	    q.num_bytes != p.num_bytes || q.num_blocks != p.num_blocks)
		abort();
	json_decref(back);
	json_decref(j);
	return 0;
}
