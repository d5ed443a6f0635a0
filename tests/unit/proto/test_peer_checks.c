/*
 * Numbers from a peer, each checked in its own domain before any arithmetic (issue 16,
 * item 1): the exact parameter bytes that once overflowed (UBSan abort) or gave a test
 * that never ended are refused with a line naming key, value and range; the boundaries a
 * real client uses are still accepted; the results JSON and the UDP header likewise.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "core/clock.h"
#include "io/udp_header.h"
#include "proto/iperf3_error.h"
#include "proto/params.h"
#include "proto/results.h"
#include "tap.h"

static const struct {
	const char *json;
	int ie;           /* BP_IE_NONE: accepted */
	const char *err;  /* the whole line, when refused */
} params_cases[] = {
	/* The bytes: 10^10 s times 10^9 overflowed int64 before the range check. */
	{ "{\"tcp\":true,\"time\":10000000000}", BP_IE_DURATION,
	  "time 10000000000: expected an integer in 1..86400" },
	/* -10^18 s of omitted start: a test that never ended on the release build. */
	{ "{\"tcp\":true,\"omit\":-1e18}", BP_IE_OMIT,
	  "omit -1e18: expected an integer in 0..3600" },
	/* omit had no maximum at all. */
	{ "{\"tcp\":true,\"time\":2,\"omit\":1000000000}", BP_IE_OMIT,
	  "omit 1000000000: expected an integer in 0..3600" },
	{ "{\"tcp\":true,\"time\":0}", BP_IE_DURATION, "time 0: expected an integer in 1..86400" },
	{ "{\"tcp\":true,\"time\":1.5}", BP_IE_DURATION,
	  "time 1.5: expected an integer in 1..86400" },
	{ "{\"tcp\":true,\"time\":\"10\"}", BP_IE_DURATION,
	  "time \"10\": expected an integer in 1..86400" },
	{ "{\"tcp\":true,\"time\":1e300}", BP_IE_DURATION,
	  "time 1e300: expected an integer in 1..86400" },
	/* The bp_ keys in ns are checked as ns, in the same bounds. */
	{ "{\"tcp\":true,\"bp_version\":1,\"bp_time_ns\":-1}", BP_IE_DURATION,
	  "bp_time_ns -1: expected an integer in 1..86400000000000" },
	{ "{\"tcp\":true,\"bp_version\":1,\"bp_time_ns\":9223372036854775807}", BP_IE_DURATION,
	  "bp_time_ns 9223372036854775807: expected an integer in 1..86400000000000" },
	{ "{\"tcp\":true,\"bp_version\":1,\"bp_omit_ns\":-1000000000000000000}", BP_IE_OMIT,
	  "bp_omit_ns -1000000000000000000: expected an integer in 0..3600000000000" },
	{ "{\"tcp\":true,\"bp_version\":1,\"bp_interval_ns\":1}", BP_IE_INTERVAL,
	  "bp_interval_ns 1: expected 0 (none) or an integer in 1000000..3600000000000" },
	{ "{\"tcp\":true,\"bp_version\":1e300}", BP_IE_RECVPARAMS,
	  "bp_version 1e300: expected an integer in 0..2147483647" },
	{ "{\"tcp\":true,\"parallel\":1e300}", BP_IE_NUMSTREAMS,
	  "parallel 1e300: expected an integer in 1..128" },
	{ "{\"tcp\":true,\"parallel\":-2147483649}", BP_IE_NUMSTREAMS,
	  "parallel -2147483649: expected an integer in 1..128" },
	{ "{\"tcp\":true,\"len\":4294967297}", BP_IE_BLOCKSIZE,
	  "len 4294967297: expected an integer in 1..1048576" },
	{ "{\"tcp\":true,\"window\":-1}", BP_IE_BUFSIZE,
	  "window -1: expected an integer in 0..1073741824" },
	{ "{\"tcp\":true,\"MSS\":65536}", BP_IE_MSS, "MSS 65536: expected an integer in 0..32767" },
	{ "{\"tcp\":true,\"bandwidth\":-1}", BP_IE_RECVPARAMS,
	  "bandwidth -1: expected an integer in 0..9007199254740992" },
	{ "{\"tcp\":true,\"fqrate\":1e20}", BP_IE_SETPACING,
	  "fqrate 1e20: expected an integer in 0..9007199254740992" },
	{ "{\"tcp\":true,\"TOS\":256}", BP_IE_SETTOS, "TOS 256: expected an integer in 0..255" },
	{ "{\"tcp\":true,\"reverse\":2}", BP_IE_RECVPARAMS,
	  "reverse 2: expected true, false, 0 or 1" },
	{ "{\"tcp\":true,\"bp_rr_request\":-5,\"bp_test\":\"rr\"}", BP_IE_BLOCKSIZE,
	  "bp_rr_request -5: expected an integer in 1..1048576" },
	{ "{\"tcp\":true,\"bp_rr_udp\":true,\"bp_rr_request\":8,\"bp_rr_response\":4,"
	  "\"bp_test\":\"rr\"}",
	  BP_IE_BLOCKSIZE, "bp_rr_response 4: expected an integer in 8..1048576" },
	/* Found by fuzz_params: a default below the range (1 byte) is no way around it. */
	{ "{\"tcp\":true,\"bp_rr_udp\":true,\"bp_test\":\"rr\"}", BP_IE_BLOCKSIZE,
	  "bp_rr_request missing: expected an integer in 8..1048576" },
	/* -n 2^64 from a stock iperf3 is refused by name, never converted. */
	{ "{\"tcp\":true,\"num\":1.8446744073709552e19}", BP_IE_RECVPARAMS,
	  "num 1.84467440737096e19: expected an integer in 0..4611686018427387904" },
	{ "{\"tcp\":true,\"num\":\"x\"}", BP_IE_RECVPARAMS,
	  "num \"x\": expected an integer in 0..4611686018427387904" },
	{ "{\"tcp\":true,\"blockcount\":5,\"bp_test\":\"rr\",\"bp_rr_request\":8,"
	  "\"bp_rr_response\":8}", BP_IE_UNIMP, "-n/-k with a rr test: expected tcp or udp" },
	/* Strings: the length they must fit, escaped when shown; a NUL inside is refused. */
	{ "{\"tcp\":true,\"congestion\":\"cubiccubiccubiccubiccubiccubiccubic\"}",
	  BP_IE_SETCONGESTION,
	  "congestion \"cubiccubiccubiccubiccubiccubiccubic\": expected a string of at most "
	  "31 bytes" },
	{ "{\"tcp\":true,\"congestion\":\"re\\u0000no\"}", BP_IE_SETCONGESTION,
	  "congestion \"re\\u0000no\": expected a string of at most 31 bytes" },
	{ "{\"tcp\":true,\"client_version\":[\"\\n\\u00e9\"]}", BP_IE_RECVPARAMS,
	  "client_version [\"\\n\\u00E9\"]: expected a string of at most 31 bytes" },
	{ "{\"tcp\":true,\"client_version\":\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}",
	  BP_IE_RECVPARAMS, "client_version \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...: expected "
	  "a string of at most 31 bytes" },
	/* Accepted: the boundaries, and what stock iperf3 clients send. */
	{ "{\"tcp\":true,\"time\":86400,\"omit\":3600}", BP_IE_NONE, NULL },
	{ "{\"tcp\":true,\"time\":1e1,\"omit\":0.0,\"parallel\":1.28e2}", BP_IE_NONE, NULL },
	{ "{\"udp\":true,\"omit\":0,\"time\":10,\"parallel\":1,\"len\":1448,\"bandwidth\":1048576,"
	  "\"pacing_timer\":1000,\"get_server_output\":1,\"udp_counters_64bit\":1,"
	  "\"client_version\":\"3.12\",\"burst\":0,\"mptcp\":false,\"title\":null}",
	  BP_IE_NONE, NULL },
	{ "{\"tcp\":true,\"bp_version\":1,\"bp_interval_ns\":1000000,\"bp_omit_ns\":3600000000000,"
	  "\"bp_time_ns\":86400000000000}", BP_IE_NONE, NULL },
};

static void test_params_domains(void)
{
	struct bp_net_params q;
	char err[256];
	int ie;

	for (size_t i = 0; i < sizeof(params_cases) / sizeof(params_cases[0]); i++) {
		json_error_t je;
		/* NUL inside strings too: the reader must refuse them, whatever the decoder lets by. */
		json_t *j = json_loads(params_cases[i].json, JSON_ALLOW_NUL, &je);
		int rc;

		CHECK(j != NULL);
		rc = bp_net_params_from_json(j, &q, &ie, err, sizeof(err));
		CHECK_INT(rc, params_cases[i].ie == BP_IE_NONE ? 0 : -EINVAL);
		CHECK_INT(ie, params_cases[i].ie);
		if (params_cases[i].err)
			CHECK_STR(err, params_cases[i].err);
		else if (rc)
			printf("# %s: %s\n", params_cases[i].json, err);
		json_decref(j);
	}
}

/* What the accepted boundaries became: scaled after the check, exactly. */
static void test_params_scaled(void)
{
	json_t *j = json_loads("{\"tcp\":true,\"time\":86400,\"omit\":3600}", 0, NULL);
	struct bp_net_params q;
	char err[256];
	int ie;

	CHECK_INT(bp_net_params_from_json(j, &q, &ie, err, sizeof(err)), 0);
	CHECK_INT(q.time_ns, 86400 * BP_NS_PER_SEC);
	CHECK_INT(q.omit_ns, 3600 * BP_NS_PER_SEC);
	json_decref(j);
}

static const struct {
	const char *json;
	const char *err;  /* NULL: accepted */
} results_cases[] = {
	{ "{\"streams\":[{\"id\":1,\"bytes\":-1}]}",
	  "streams[0].bytes -1: expected an integer in 0..9007199254740992" },
	{ "{\"streams\":[{\"id\":1},{\"id\":1e20}]}",
	  "streams[1].id 1e20: expected an integer in 0..2147483647" },
	{ "{\"streams\":[{\"id\":1,\"errors\":1e300}]}",
	  "streams[0].errors 1e300: expected an integer in -9007199254740992..9007199254740992" },
	/* Older cJSON printed an unknown -1 as 2^64 - 1: read as unknown, not refused. */
	{ "{\"streams\":[{\"id\":1,\"retransmits\":18446744073709551615}]}", NULL },
	{ "{\"streams\":[{\"id\":1,\"retransmits\":-2}]}",
	  "streams[0].retransmits -2: expected an integer in -1..9007199254740992" },
	{ "{\"streams\":[{\"id\":1,\"jitter\":-1}]}",
	  "streams[0].jitter -1: expected a number in 0..1e+06" },
	{ "{\"streams\":[{\"id\":1,\"end_time\":\"5\"}]}",
	  "streams[0].end_time \"5\": expected a number in 0..1e+06" },
	{ "{\"streams\":[],\"cpu_util_total\":1e300}",
	  "cpu_util_total 1e300: expected a number in 0..100000" },
	{ "{\"streams\":[],\"bp_intervals\":[{\"start\":0,\"end\":1,\"sent\":1.5}]}",
	  "bp_intervals[0].sent 1.5: expected an integer in 0..9007199254740992" },
	{ "{\"streams\":[],\"bp_intervals\":[{},{\"cwnd\":4294967296}]}",
	  "bp_intervals[1].cwnd 4294967296: expected an integer in 0..4294967295" },
	{ "{\"streams\":[],\"congestion_used\":\"cubic\\u001b[2J\"}",
	  "congestion_used: expected a lower-case word" },
	{ "{\"streams\":{}}", "streams: expected an array" },
	/* Issue 31: in range, impossible together or of the wrong type. */
	{ "{\"streams\":[[{\"id\":1,\"bytes\":5}]]}", "streams[0]: expected an object" },
	{ "{\"streams\":[],\"bp_intervals\":[{},[]]}", "bp_intervals[1]: expected an object" },
	{ "{\"streams\":[{\"id\":1,\"bytes\":9007199254740992,\"start_time\":0,"
	  "\"end_time\":1e-300}]}", "streams[0]: 9007199254740992 bytes, 0 datagrams in 1e-300 s: "
	  "expected at most 1e+15 bit/s and 1.5e+09 datagrams/s" },
	{ "{\"streams\":[],\"bp_intervals\":[{\"start\":0,\"end\":1e-12,"
	  "\"received\":1000000}]}", "bp_intervals[0]: a span of 1e-12 s: expected 0 or at "
	  "least 1e-09 s (the clocks count nanoseconds)" },
	/* a last interval of a microsecond taking in counts published late: read */
	{ "{\"streams\":[],\"bp_intervals\":[{\"start\":1,\"end\":1.000001,"
	  "\"received\":5000000,\"packets_received\":3000}]}", NULL },
	/* 100 Gbit/s over a second, and a span of 0 (the rate unknown, not infinite): read */
	{ "{\"streams\":[{\"id\":1,\"bytes\":12500000000,\"start_time\":0,"
	  "\"end_time\":1}, {\"id\":3,\"bytes\":5}]}", NULL },
	/* A stock iperf3's results. */
	{ "{\"cpu_util_total\":1.5,\"cpu_util_user\":0.5,\"cpu_util_system\":1,"
	  "\"sender_has_retransmits\":1,\"congestion_used\":\"cubic\",\"streams\":[{\"id\":1,"
	  "\"bytes\":1073741824,\"retransmits\":0,\"jitter\":0,\"errors\":0,\"packets\":0,"
	  "\"start_time\":0,\"end_time\":10.000123}]}", NULL },
};

/* As the control decoder reads a message (proto/control.c): a number too large for
 * jansson's integers reads the whole message again with every number as a double. */
static json_t *load_as_control(const char *text)
{
	json_error_t je;
	json_t *j = json_loads(text, 0, &je);

	if (!j && json_error_code(&je) == json_error_numeric_overflow)
		j = json_loads(text, JSON_DECODE_INT_AS_REAL, &je);
	return j;
}

static void test_results_domains(void)
{
	static struct bp_net_results r;
	char err[256];

	for (size_t i = 0; i < sizeof(results_cases) / sizeof(results_cases[0]); i++) {
		json_t *j = load_as_control(results_cases[i].json);

		CHECK(j != NULL);
		CHECK_INT(bp_net_results_from_json(j, &r, err, sizeof(err)),
			  results_cases[i].err ? -EBADMSG : 0);
		if (results_cases[i].err)
			CHECK_STR(err, results_cases[i].err);
		json_decref(j);
	}
	CHECK_INT(r.streams[0].bytes, 1073741824);
}

/* Microseconds of a second or more, and 64-bit sequences no sender reaches, are refused. */
static void test_udp_header_domains(void)
{
	struct bp_udp_header h;
	uint8_t usec[12] = { 0, 0, 0, 1, 0, 0x0f, 0x42, 0x40, 0, 0, 0, 1 };   /* 1000000 us */
	uint8_t usec_ok[12] = { 0, 0, 0, 1, 0, 0x0f, 0x42, 0x3f, 0, 0, 0, 1 }; /* 999999 us */
	uint8_t seq[16] = { 0, 0, 0, 1, 0, 0, 0, 0, 0x40, 0, 0, 0, 0, 0, 0, 1 }; /* 2^62 + 1 */
	uint8_t seq_ok[16] = { 0, 0, 0, 1, 0, 0, 0, 0, 0x40, 0, 0, 0, 0, 0, 0, 0 };
	uint8_t all_ff[16];

	memset(all_ff, 0xff, sizeof(all_ff));
	CHECK_INT(bp_udp_header_decode(usec, sizeof(usec), false, &h), -EBADMSG);
	CHECK_INT(bp_udp_header_decode(usec_ok, sizeof(usec_ok), false, &h), 12);
	CHECK_INT(h.usec, 999999);
	CHECK_INT(bp_udp_header_decode(seq, sizeof(seq), true, &h), -EBADMSG);
	CHECK_INT(bp_udp_header_decode(seq_ok, sizeof(seq_ok), true, &h), 16);
	CHECK(h.seq == BP_UDP_SEQ64_MAX);
	CHECK_INT(bp_udp_header_decode(all_ff, sizeof(all_ff), true, &h), -EBADMSG);
	/* With 32-bit counters every sequence is valid; the microseconds still are not. */
	CHECK_INT(bp_udp_header_decode(all_ff, 12, false, &h), -EBADMSG);
	all_ff[4] = 0;
	all_ff[5] = 0;
	CHECK_INT(bp_udp_header_decode(all_ff, 12, false, &h), 12);
	CHECK_INT(h.seq, UINT32_MAX);
}

int main(void)
{
	test_params_domains();
	test_params_scaled();
	test_results_domains();
	test_udp_header_domains();
	return tap_done();
}
