#include "proto/params.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/clock.h"
#include "proto/iperf3_error.h"
#include "proto/control.h"

/* Limits a server enforces whatever the client asks: sane, and far beyond any board. */
#define MAX_STREAMS 128
#define MAX_LEN (1 << 20)      /* the stream pool's (and iperf3's) largest write */
#define MAX_WINDOW (1 << 30)

static const struct {
	const char *name;
	enum bp_net_kind kind;
} kind_names[] = {
	{ "tcp", BP_NET_KIND_TCP },
	{ "udp", BP_NET_KIND_UDP },
	{ "rr", BP_NET_KIND_RR },
	{ "crr", BP_NET_KIND_CRR },
};

enum bp_net_kind bp_net_kind_from_name(const char *name)
{
	for (size_t i = 0; i < sizeof(kind_names) / sizeof(kind_names[0]); i++)
		if (!strcmp(name, kind_names[i].name))
			return kind_names[i].kind;
	return BP_NET_KIND_UNKNOWN;
}

const char *bp_net_kind_name(enum bp_net_kind kind)
{
	for (size_t i = 0; i < sizeof(kind_names) / sizeof(kind_names[0]); i++)
		if (kind_names[i].kind == kind)
			return kind_names[i].name;
	return NULL;
}

void bp_net_params_set_test(struct bp_net_params *p, const char *name)
{
	snprintf(p->test, sizeof(p->test), "%s", name);
	/* From what was kept: a name cut to fit is longer than any kind's and stays unknown. */
	p->kind = bp_net_kind_from_name(p->test);
}

bool bp_net_params_udp(const struct bp_net_params *p)
{
	return p->kind == BP_NET_KIND_UDP;
}

bool bp_net_params_rr(const struct bp_net_params *p)
{
	return p->kind == BP_NET_KIND_RR || p->kind == BP_NET_KIND_CRR;
}

bool bp_net_params_datagram(const struct bp_net_params *p)
{
	return bp_net_params_udp(p) || (p->kind == BP_NET_KIND_RR && p->rr_udp);
}

/* rr flows count as the client's streams; crr opens its connections during the test. */
int bp_net_params_up_streams(const struct bp_net_params *p)
{
	if (p->kind == BP_NET_KIND_CRR)
		return 0;
	return p->reverse && !p->bidir ? 0 : p->parallel;
}

int bp_net_params_down_streams(const struct bp_net_params *p)
{
	if (bp_net_params_rr(p))
		return 0;
	return p->reverse || p->bidir ? p->parallel : 0;
}

json_t *bp_net_params_to_json(const struct bp_net_params *p)
{
	json_t *j = json_object();

	if (!j)
		return NULL;
	json_object_set_new(j, bp_net_params_udp(p) ? "udp" : "tcp", json_true());
	/* iperf3 wants whole seconds; a stock server rounds sub-second tests up to 1 s. */
	json_object_set_new(j, "time", json_integer((json_int_t)((p->time_ns + BP_NS_PER_SEC - 1) /
								  BP_NS_PER_SEC)));
	json_object_set_new(j, "omit", json_integer((json_int_t)(p->omit_ns / BP_NS_PER_SEC)));
	json_object_set_new(j, "parallel", json_integer(p->parallel));
	if (p->reverse)
		json_object_set_new(j, "reverse", json_true());
	if (p->bidir)
		json_object_set_new(j, "bidirectional", json_true());
	if (p->window)
		json_object_set_new(j, "window", json_integer(p->window));
	json_object_set_new(j, "len", json_integer(p->len));
	if (p->mss)
		json_object_set_new(j, "MSS", json_integer(p->mss));
	if (p->nodelay)
		json_object_set_new(j, "nodelay", json_true());
	if (p->bandwidth > 0)
		json_object_set_new(j, "bandwidth", json_integer((json_int_t)p->bandwidth));
	if (p->congestion[0])
		json_object_set_new(j, "congestion", json_string(p->congestion));
	if (p->get_server_output)
		json_object_set_new(j, "get_server_output", json_integer(1));
	if (p->udp64)
		json_object_set_new(j, "udp_counters_64bit", json_integer(1));
	if (p->tos)
		json_object_set_new(j, "TOS", json_integer(p->tos));
	if (p->fq_rate > 0)
		json_object_set_new(j, "fqrate", json_integer((json_int_t)p->fq_rate));
	if (p->dont_fragment)
		json_object_set_new(j, "dont_fragment", json_integer(1));
	if (p->zerocopy && p->iperf3)
		json_object_set_new(j, "zerocopy", json_integer(1));
	json_object_set_new(j, "client_version", json_string(p->client_version));
	if (p->iperf3)
		return j; /* a stock server would ignore the rest; keep its log clean */
	json_object_set_new(j, "bp_version", json_integer(BP_PROTO_VERSION));
	json_object_set_new(j, "bp_test", json_string(p->test));
	json_object_set_new(j, "bp_time_ns", json_integer((json_int_t)p->time_ns));
	json_object_set_new(j, "bp_omit_ns", json_integer((json_int_t)p->omit_ns));
	json_object_set_new(j, "bp_interval_ns", json_integer((json_int_t)p->interval_ns));
	if (p->zerocopy)
		json_object_set_new(j, "bp_zerocopy", json_true());
	if (bp_net_params_rr(p)) {
		json_object_set_new(j, "bp_rr_request", json_integer(p->rr_request));
		json_object_set_new(j, "bp_rr_response", json_integer(p->rr_response));
		if (p->rr_udp)
			json_object_set_new(j, "bp_rr_udp", json_true());
		if (p->crr_hold)
			json_object_set_new(j, "bp_crr_hold", json_true());
	}
	return j;
}

static json_int_t get_int(const json_t *j, const char *key, json_int_t def)
{
	const json_t *v = json_object_get(j, key);

	if (json_is_integer(v))
		return json_integer_value(v);
	if (json_is_real(v))
		return (json_int_t)json_real_value(v);
	if (json_is_boolean(v))
		return json_is_true(v);
	return def;
}

static void get_str(const json_t *j, const char *key, char *out, size_t len)
{
	const char *s = json_string_value(json_object_get(j, key));

	snprintf(out, len, "%s", s ? s : "");
}

static int check_range(const char *what, json_int_t v, json_int_t lo, json_int_t hi,
		       int *ie, int code, char *err, size_t errlen)
{
	if (v >= lo && v <= hi)
		return 0;
	*ie = code;
	snprintf(err, errlen, "%s %lld out of range %lld..%lld", what, (long long)v,
		 (long long)lo, (long long)hi);
	return -EINVAL;
}

static int read_kind(const json_t *j, struct bp_net_params *p, int *ie, char *err,
		     size_t errlen)
{
	p->bp_version = (int)get_int(j, "bp_version", 0);
	*ie = BP_IE_RECVPARAMS;
	if (p->bp_version > BP_PROTO_VERSION || p->bp_version < 0) {
		snprintf(err, errlen, "client speaks boardperf protocol %d, this server %d: "
			 "update the older side", p->bp_version, BP_PROTO_VERSION);
		return -EINVAL;
	}
	get_str(j, "bp_test", p->test, sizeof(p->test));
	if (!p->test[0])
		snprintf(p->test, sizeof(p->test), "%s",
			 get_int(j, "udp", 0) ? "udp" : get_int(j, "tcp", 0) ? "tcp" : "");
	if (!p->test[0] && get_int(j, "sctp", 0)) {
		snprintf(err, errlen, "SCTP is not supported (tcp and udp are)");
		*ie = BP_IE_PROTOCOL;
		return -EINVAL;
	}
	if (!p->test[0]) {
		snprintf(err, errlen, "parameters name no test (neither tcp nor udp)");
		return -EINVAL;
	}
	/* An unknown name is kept, not refused here: the server refuses it by name. */
	p->kind = bp_net_kind_from_name(p->test);
	*ie = BP_IE_NONE;
	return 0;
}

/*
 * iperf3 options a stock client may send that this server does not implement: refused by
 * name, since running the test without them would give a different test than was asked.
 * (Keys that only shape the client's own display or code paths -- title, extra_data,
 * pacing_timer, gso/gro, skip_rx_copy, repeating_payload, an authtoken a server without
 * users ignores as iperf3 does -- are accepted.)
 */
static const struct {
	const char *key;
	const char *option;
	json_int_t harmless;  /* the largest value that means "not used" */
} unsupported[] = {
	{ "num", "-n/--bytes (use -t)", 0 },
	{ "blockcount", "-k/--blockcount (use -t)", 0 },
	{ "mptcp", "-m/--mptcp", 0 },
	{ "burst", "-b RATE/BURST (bursts of datagrams)", 1 },
	{ "flowlabel", "-L/--flowlabel", 0 },
	{ "server_affinity", "-A with a server CPU", -1 },
};

static int check_unsupported(const json_t *j, int *ie, char *err, size_t errlen)
{
	for (size_t i = 0; i < sizeof(unsupported) / sizeof(unsupported[0]); i++)
		if (get_int(j, unsupported[i].key, unsupported[i].harmless) >
		    unsupported[i].harmless) {
			snprintf(err, errlen, "iperf3 option %s is not supported by this server",
				 unsupported[i].option);
			*ie = BP_IE_UNIMP;
			return -EINVAL;
		}
	return 0;
}

int bp_net_params_from_json(const json_t *j, struct bp_net_params *p, int *ie, char *err,
			    size_t errlen)
{
	json_int_t secs = get_int(j, "time", 10);
	int rc;

	memset(p, 0, sizeof(*p));
	rc = read_kind(j, p, ie, err, errlen);
	if (!rc)
		rc = check_unsupported(j, ie, err, errlen);
	if (rc)
		return rc;
	p->time_ns = (uint64_t)get_int(j, "bp_time_ns", secs * (json_int_t)BP_NS_PER_SEC);
	p->omit_ns = (uint64_t)get_int(j, "bp_omit_ns",
				       get_int(j, "omit", 0) * (json_int_t)BP_NS_PER_SEC);
	p->interval_ns = (uint64_t)get_int(j, "bp_interval_ns", 0);
	p->parallel = (int)get_int(j, "parallel", 1);
	p->reverse = get_int(j, "reverse", 0);
	p->bidir = get_int(j, "bidirectional", 0);
	p->window = (int)get_int(j, "window", 0);
	p->len = (int)get_int(j, "len", 128 * 1024);
	p->mss = (int)get_int(j, "MSS", 0);
	p->nodelay = get_int(j, "nodelay", 0);
	p->zerocopy = get_int(j, "bp_zerocopy", 0) || get_int(j, "zerocopy", 0);
	p->bandwidth = (double)get_int(j, "bandwidth", 0);
	p->get_server_output = get_int(j, "get_server_output", 0);
	p->udp64 = get_int(j, "udp_counters_64bit", 0);
	p->tos = (int)get_int(j, "TOS", 0);
	p->fq_rate = (double)get_int(j, "fqrate", 0);
	p->dont_fragment = get_int(j, "dont_fragment", 0);
	p->rr_request = (int)get_int(j, "bp_rr_request", 1);
	p->rr_response = (int)get_int(j, "bp_rr_response", 1);
	p->rr_udp = get_int(j, "bp_rr_udp", 0);
	p->crr_hold = get_int(j, "bp_crr_hold", 0);
	get_str(j, "congestion", p->congestion, sizeof(p->congestion));
	get_str(j, "client_version", p->client_version, sizeof(p->client_version));
	get_str(j, "authtoken", p->authtoken, sizeof(p->authtoken));
	rc = check_range("parallel", p->parallel, 1, MAX_STREAMS, ie, BP_IE_NUMSTREAMS, err,
			 errlen);
	if (!rc)
		rc = check_range("len", p->len, 1, MAX_LEN, ie, BP_IE_BLOCKSIZE, err, errlen);
	if (!rc)
		rc = check_range("window", p->window, 0, MAX_WINDOW, ie, BP_IE_BUFSIZE, err, errlen);
	/* -t 0 asks a stock iperf3 for an endless test; a server here bounds every test. */
	if (!rc)
		rc = check_range("time (s)", (json_int_t)((p->time_ns + BP_NS_PER_SEC - 1) /
							  BP_NS_PER_SEC), 1, 86400, ie,
				 BP_IE_DURATION, err, errlen);
	if (!rc)
		rc = check_range("TOS", p->tos, 0, 255, ie, BP_IE_SETTOS, err, errlen);
	if (!rc)
		rc = check_range("request size", p->rr_request, p->rr_udp ? 8 : 1, MAX_LEN, ie,
				 BP_IE_BLOCKSIZE, err, errlen);
	if (!rc)
		rc = check_range("response size", p->rr_response, p->rr_udp ? 8 : 1, MAX_LEN, ie,
				 BP_IE_BLOCKSIZE, err, errlen);
	return rc;
}
