#include "proto/params.h"

#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/clock.h"
#include "proto/iperf3_error.h"
#include "proto/control.h"
#include "proto/peer_json.h"
#include "result/kind.h"

/* Limits a server enforces whatever the client asks: sane, and far beyond any board. */
#define MAX_STREAMS 128
#define MAX_LEN (1 << 20)      /* the stream pool's (and iperf3's) largest write */
#define MAX_WINDOW (1 << 30)
#define MAX_MSS 32767          /* iperf3's MAX_MSS (src/iperf.h) */
#define MAX_RATE BP_PEER_INT_MAX  /* bit/s: whole numbers a double holds exactly */
#define MAX_TIME_S 86400LL     /* one day: iperf3's MAX_TIME */
/*
 * The omitted start runs before the counted time. 3600 s is the longest -O the boardperf
 * client offers (a stock iperf3 client stops at its MAX_OMIT_TIME, 600), so no client of
 * either kind is refused, and a test is at most 86,400 + 3,600 s long even before the
 * server's --max-duration, which bounds omit + time together.
 */
#define MAX_OMIT_S 3600LL
/* The longest -i the client offers; the shortest: BP_NET_MIN_INTERVAL_NS (params.h). */
#define MAX_INTERVAL_S 3600LL
#define MIN_INTERVAL_NS ((long long)BP_NET_MIN_INTERVAL_NS)

unsigned bp_net_shape_of(const char *name)
{
	const struct bp_kind *k = bp_kind_find(name);

	return k ? k->net : 0;
}

void bp_net_params_set_test(struct bp_net_params *p, const char *name)
{
	snprintf(p->test, sizeof(p->test), "%s", name);
	/* From what was kept: a name cut to fit is longer than any kind's and stays unknown. */
	p->shape = bp_net_shape_of(p->test);
}

bool bp_net_params_udp(const struct bp_net_params *p)
{
	return (p->shape & BP_NET_STREAMS) && (p->shape & BP_NET_DATAGRAMS);
}

bool bp_net_params_rr(const struct bp_net_params *p)
{
	return p->shape & BP_NET_FLOWS;
}

bool bp_net_params_conns_while_running(const struct bp_net_params *p)
{
	return p->shape & BP_NET_CONNS_WHILE_RUNNING;
}

bool bp_net_params_datagram(const struct bp_net_params *p)
{
	return bp_net_params_udp(p) ||
	       (bp_net_params_rr(p) && !bp_net_params_conns_while_running(p) && p->rr_udp);
}

/* rr flows count as the client's streams; crr opens its connections during the test. */
int bp_net_params_up_streams(const struct bp_net_params *p)
{
	if (bp_net_params_conns_while_running(p))
		return 0;
	return p->reverse && !p->bidir ? 0 : p->parallel;
}

int bp_net_params_down_streams(const struct bp_net_params *p)
{
	if (bp_net_params_rr(p))
		return 0;
	return p->reverse || p->bidir ? p->parallel : 0;
}

uint64_t bp_net_params_blocks_of_stream(const struct bp_net_params *p, int k, int streams)
{
	uint64_t len = p->len > 0 ? (uint64_t)p->len : 1;
	uint64_t blocks = p->num_blocks ? p->num_blocks : (p->num_bytes + len - 1) / len;
	uint64_t n = streams > 0 ? (uint64_t)streams : 1;
	uint64_t share = blocks / n + ((uint64_t)k < blocks % n);

	if (!p->num_bytes && !p->num_blocks)
		return 0;
	return share ? share : 1;
}

uint64_t bp_net_params_blocks_total(const struct bp_net_params *p, int streams)
{
	uint64_t sum = 0;

	for (int k = 0; k < streams; k++)
		sum += bp_net_params_blocks_of_stream(p, k, streams);
	return sum;
}

json_t *bp_net_params_to_json(const struct bp_net_params *p)
{
	json_t *j = json_object();
	bool counted = p->num_bytes || p->num_blocks;

	if (!j)
		return NULL;
	/* iperf3 names the transport with one key: "tcp", "udp" or "sctp". */
	json_object_set_new(j, bp_net_params_udp(p) ? "udp" : p->sctp ? "sctp" : "tcp",
			    json_true());
	/* iperf3 wants whole seconds; a stock server rounds sub-second tests up to 1 s. -n and
	 * -k end the test by a count, as iperf3's client says with "time": 0; the server
	 * then cuts at its own --max-duration, as this side at its -t (net_cli.h). */
	json_object_set_new(j, "time", json_integer(counted ? 0 :
			    (json_int_t)((p->time_ns + BP_NS_PER_SEC - 1) / BP_NS_PER_SEC)));
	if (p->num_bytes)
		json_object_set_new(j, "num", json_integer((json_int_t)p->num_bytes));
	if (p->num_blocks)
		json_object_set_new(j, "blockcount", json_integer((json_int_t)p->num_blocks));
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
	json_object_set_new(j, "bp_version", json_integer(BP_PROTO_VERSION_BASE));
	json_object_set_new(j, "bp_test", json_string(p->test));
	json_object_set_new(j, "bp_time_ns", json_integer(counted ? 0 : (json_int_t)p->time_ns));
	json_object_set_new(j, "bp_omit_ns", json_integer((json_int_t)p->omit_ns));
	json_object_set_new(j, "bp_interval_ns", json_integer((json_int_t)p->interval_ns));
	if (p->zerocopy)
		json_object_set_new(j, "bp_zerocopy", json_true());
	if (p->packet_engine)
		json_object_set_new(j, "bp_packet_engine", json_true());
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

/*
 * Every key below is read through the checked reader (proto/peer_json.h): its value is
 * checked as sent -- seconds as seconds, before any scaling to ns -- so no arithmetic
 * here or downstream ever sees a number outside the range written beside its key.
 */
static int read_kind(struct bp_peer_reader *rd, struct bp_net_params *p)
{
	long long v = bp_peer_int(rd, "bp_version", 0, 0, INT_MAX, BP_IE_RECVPARAMS);

	p->bp_version = (int)v;
	if (p->bp_version > BP_PROTO_VERSION)
		bp_peer_refuse(rd, BP_IE_RECVPARAMS, "client speaks boardperf protocol %d, this "
			       "server %d: update the older side", p->bp_version, BP_PROTO_VERSION);
	bp_peer_str(rd, "bp_test", p->test, sizeof(p->test), BP_IE_RECVPARAMS);
	/* The transport: a stock iperf3's --sctp is a tcp test whose streams are SCTP. */
	p->sctp = bp_peer_flag(rd, "sctp", BP_IE_RECVPARAMS);
	if (!p->test[0])
		snprintf(p->test, sizeof(p->test), "%s",
			 bp_peer_flag(rd, "udp", BP_IE_RECVPARAMS) ? "udp" :
			 bp_peer_flag(rd, "tcp", BP_IE_RECVPARAMS) || p->sctp ? "tcp" : "");
	if (!p->test[0])
		bp_peer_refuse(rd, BP_IE_RECVPARAMS,
			       "parameters name no test (neither tcp, udp nor sctp)");
	/* An unknown name is kept, not refused here: the server refuses it by name. */
	p->shape = bp_net_shape_of(p->test);
	if (p->sctp && bp_net_params_udp(p))
		bp_peer_refuse(rd, BP_IE_PROTOCOL, "sctp with a udp test: expected one transport");
	return rd->rc;
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
	double harmless;  /* the largest value that means "not used" */
} unsupported[] = {
	{ "mptcp", "-m/--mptcp", 0 },
	{ "burst", "-b RATE/BURST (bursts of datagrams)", 1 },
	{ "flowlabel", "-L/--flowlabel", 0 },
	{ "server_affinity", "-A with a server CPU", -1 },
};

static int check_unsupported(struct bp_peer_reader *rd)
{
	for (size_t i = 0; i < sizeof(unsupported) / sizeof(unsupported[0]); i++) {
		const char *key = unsupported[i].key;
		const json_t *v = json_object_get(rd->obj, key);
		/* iperf3 sends "mptcp" as true and the rest as numbers (-n may be 2^64). */
		double x = json_is_boolean(v) ? json_is_true(v) :
			   bp_peer_real(rd, key, unsupported[i].harmless, -DBL_MAX, DBL_MAX,
					BP_IE_RECVPARAMS);

		if (x > unsupported[i].harmless)
			bp_peer_refuse(rd, BP_IE_UNIMP, "iperf3 option %s is not supported by "
				       "this server", unsupported[i].option);
	}
	return rd->rc;
}

/* Durations as the wire carries them: whole seconds (iperf3's keys) and ns (bp_ keys). */
static void read_durations(struct bp_peer_reader *rd, struct bp_net_params *p)
{
	/* -t 0 asks a stock iperf3 for an endless test; a server here bounds every test. */
	/* -n and -k end a test by its bytes or blocks: a stock client sends "time": 0 */
	bool counted = p->num_bytes || p->num_blocks;
	long long secs = bp_peer_int(rd, "time", 10, counted ? 0 : 1, MAX_TIME_S, BP_IE_DURATION);
	long long omit = bp_peer_int(rd, "omit", 0, 0, MAX_OMIT_S, BP_IE_OMIT);

	p->time_ns = (uint64_t)bp_peer_int(rd, "bp_time_ns", secs * (long long)BP_NS_PER_SEC,
					   counted ? 0 : 1,
					   MAX_TIME_S * (long long)BP_NS_PER_SEC, BP_IE_DURATION);
	p->omit_ns = (uint64_t)bp_peer_int(rd, "bp_omit_ns", omit * (long long)BP_NS_PER_SEC, 0,
					   MAX_OMIT_S * (long long)BP_NS_PER_SEC, BP_IE_OMIT);
	p->interval_ns = (uint64_t)bp_peer_int(rd, "bp_interval_ns", 0, 0,
					       MAX_INTERVAL_S * (long long)BP_NS_PER_SEC,
					       BP_IE_INTERVAL);
	if (p->interval_ns && p->interval_ns < MIN_INTERVAL_NS)
		bp_peer_refuse(rd, BP_IE_INTERVAL, "bp_interval_ns %llu: expected 0 (none) or an "
			       "integer in %lld..%lld", (unsigned long long)p->interval_ns,
			       (long long)MIN_INTERVAL_NS,
			       MAX_INTERVAL_S * (long long)BP_NS_PER_SEC);
}

int bp_net_params_from_json(const json_t *j, struct bp_net_params *p, int *ie, char *err,
			    size_t errlen)
{
	struct bp_peer_reader rd = bp_peer_reader(j, err, errlen);

	memset(p, 0, sizeof(*p));
	if (!read_kind(&rd, p))
		check_unsupported(&rd);
	/* iperf3 sends -n as a 64-bit count; more than 2^62 bytes is no test that ends */
	p->num_bytes = (uint64_t)bp_peer_int(&rd, "num", 0, 0, 1LL << 62, BP_IE_RECVPARAMS);
	p->num_blocks = (uint64_t)bp_peer_int(&rd, "blockcount", 0, 0, 1LL << 62,
					       BP_IE_RECVPARAMS);
	if ((p->num_bytes || p->num_blocks) && !(p->shape & BP_NET_STREAMS))
		bp_peer_refuse(&rd, BP_IE_UNIMP, "-n/-k with a %s test: expected tcp or udp",
			       p->test);
	read_durations(&rd, p);
	p->parallel = (int)bp_peer_int(&rd, "parallel", 1, 1, MAX_STREAMS, BP_IE_NUMSTREAMS);
	p->reverse = bp_peer_flag(&rd, "reverse", BP_IE_RECVPARAMS);
	p->bidir = bp_peer_flag(&rd, "bidirectional", BP_IE_RECVPARAMS);
	p->window = (int)bp_peer_int(&rd, "window", 0, 0, MAX_WINDOW, BP_IE_BUFSIZE);
	p->len = (int)bp_peer_int(&rd, "len", 128 * 1024, 1, MAX_LEN, BP_IE_BLOCKSIZE);
	p->mss = (int)bp_peer_int(&rd, "MSS", 0, 0, MAX_MSS, BP_IE_MSS);
	p->nodelay = bp_peer_flag(&rd, "nodelay", BP_IE_RECVPARAMS);
	/* Both read, so both are checked: boardperf's key and iperf3's. */
	p->zerocopy = bp_peer_flag(&rd, "bp_zerocopy", BP_IE_RECVPARAMS);
	p->zerocopy = bp_peer_flag(&rd, "zerocopy", BP_IE_RECVPARAMS) || p->zerocopy;
	p->packet_engine = bp_peer_flag(&rd, "bp_packet_engine", BP_IE_RECVPARAMS);
	p->bandwidth = (double)bp_peer_int(&rd, "bandwidth", 0, 0, MAX_RATE, BP_IE_RECVPARAMS);
	p->get_server_output = bp_peer_flag(&rd, "get_server_output", BP_IE_RECVPARAMS);
	p->udp64 = bp_peer_flag(&rd, "udp_counters_64bit", BP_IE_RECVPARAMS);
	p->tos = (int)bp_peer_int(&rd, "TOS", 0, 0, 255, BP_IE_SETTOS);
	p->fq_rate = (double)bp_peer_int(&rd, "fqrate", 0, 0, MAX_RATE, BP_IE_SETPACING);
	p->dont_fragment = bp_peer_flag(&rd, "dont_fragment", BP_IE_RECVPARAMS);
	p->rr_udp = bp_peer_flag(&rd, "bp_rr_udp", BP_IE_RECVPARAMS);
	p->crr_hold = bp_peer_flag(&rd, "bp_crr_hold", BP_IE_RECVPARAMS);
	if (p->sctp && p->rr_udp)
		bp_peer_refuse(&rd, BP_IE_PROTOCOL, "sctp with bp_rr_udp: expected one transport");
	/* Over UDP a request carries the 8-byte header that pairs it with its answer. */
	p->rr_request = (int)bp_peer_int(&rd, "bp_rr_request", 1, p->rr_udp ? 8 : 1, MAX_LEN,
					 BP_IE_BLOCKSIZE);
	p->rr_response = (int)bp_peer_int(&rd, "bp_rr_response", 1, p->rr_udp ? 8 : 1, MAX_LEN,
					  BP_IE_BLOCKSIZE);
	bp_peer_str(&rd, "congestion", p->congestion, sizeof(p->congestion), BP_IE_SETCONGESTION);
	bp_peer_str(&rd, "client_version", p->client_version, sizeof(p->client_version),
		    BP_IE_RECVPARAMS);
	/* iperf3's credentials; one longer than any RSA block's base64 is refused as such */
	bp_peer_str(&rd, "authtoken", p->authtoken, sizeof(p->authtoken), BP_IE_AUTHTEST);
	*ie = rd.rc ? rd.code : BP_IE_NONE;
	return rd.rc;
}
