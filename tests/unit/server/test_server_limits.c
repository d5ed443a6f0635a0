/*
 * The server's admission limits (server_limits.h): each limit at, just past and far past
 * its bound (a sum that would overflow included), which one a refusal names when several
 * are broken, the message, the iperf3 dialect, and the client address a test counts under.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "proto/iperf3_error.h"
#include "server/server_internal.h"
#include "server/server_limits.h"
#include "tap.h"

#define S BP_NS_PER_SEC

/* The defaults of `serve` (cmd_serve.c), which the cases below are written against. */
#define DEFAULTS { .max_clients = 64, .max_per_client = 4, .max_duration_ns = 600 * S, \
		   .max_streams = 128, .max_rate = 0 }
static const struct bp_server_opts defaults = DEFAULTS;

struct check_case {
	const char *what;
	struct bp_server_opts o;
	struct bp_limits_ask a;
	enum bp_limit want;
	const char *msg;  /* the whole line, or NULL when admitted */
};

/* From one client, nothing else running; a time or -P left 0 is 10 s and 1 (test_cases). */
#define ASK(...) { .client = "192.0.2.7", __VA_ARGS__ }

static const struct check_case cases[] = {
	{ "an ordinary test", DEFAULTS, ASK(), BP_LIMIT_NONE, NULL },
	{ "the issue's tcp -R -t 86400 -P 128", DEFAULTS, ASK(.time_ns = 86400 * S,
	  .parallel = 128), BP_LIMIT_DURATION,
	  "test of 86400 s exceeds the server's --max-duration 600 s" },
	{ "exactly the maximum duration", DEFAULTS, ASK(.time_ns = 600 * S), BP_LIMIT_NONE, NULL },
	{ "one ns over it", DEFAULTS, ASK(.time_ns = 600 * S + 1), BP_LIMIT_DURATION,
	  "test of 600 s exceeds the server's --max-duration 600 s" },
	{ "the omitted start counts", DEFAULTS, ASK(.time_ns = 590 * S, .omit_ns = 11 * S),
	  BP_LIMIT_DURATION, "test of 601 s exceeds the server's --max-duration 600 s" },
	/* time + omit would wrap to 0 in 64 bits: checked without the sum. */
	{ "a sum that overflows", DEFAULTS, ASK(.time_ns = 1 * S, .omit_ns = UINT64_MAX),
	  BP_LIMIT_DURATION, NULL },
	{ "no maximum duration", { .max_duration_ns = 0 }, ASK(.time_ns = 86400 * S),
	  BP_LIMIT_NONE, NULL },
	{ "128 streams (iperf3's maximum)", DEFAULTS, ASK(.parallel = 128), BP_LIMIT_NONE, NULL },
	{ "more streams than --max-streams", { .max_streams = 8 }, ASK(.parallel = 9),
	  BP_LIMIT_STREAMS, "9 parallel streams exceed the server's --max-streams 8" },
	{ "the last slot", DEFAULTS, ASK(.running = 63, .running_from_client = 3),
	  BP_LIMIT_NONE, NULL },
	{ "every slot taken", DEFAULTS, ASK(.running = 64), BP_LIMIT_CLIENTS,
	  "server busy: 64 tests running (--max-clients 64); try again later" },
	{ "this address holds its share", DEFAULTS, ASK(.running = 4, .running_from_client = 4),
	  BP_LIMIT_PER_CLIENT, "server busy for 192.0.2.7: 4 tests from this address running "
	  "(--max-per-client 4); try again later" },
	{ "no per-client limit", { .max_clients = 64 }, ASK(.running = 40,
	  .running_from_client = 40), BP_LIMIT_NONE, NULL },
	{ "the server full names --max-clients first", DEFAULTS, ASK(.running = 64,
	  .running_from_client = 9, .time_ns = 86400 * S), BP_LIMIT_CLIENTS, NULL },
	{ "the rate is open by default", DEFAULTS, ASK(.rate = 400e9, .parallel = 128),
	  BP_LIMIT_NONE, NULL },
	{ "exactly --max-rate", { .max_rate = 1e9 }, ASK(.rate = 1e9), BP_LIMIT_NONE, NULL },
	{ "above --max-rate", { .max_rate = 1e9 }, ASK(.rate = 2e9), BP_LIMIT_RATE,
	  "rate 2.00 Gbit/s exceeds the server's --max-rate 1.00 Gbit/s" },
	/* -b is per stream (iperf3): 4 x 300M is 1.2G, over a 1G limit each stream is under. */
	{ "-b times -P above --max-rate", { .max_rate = 1e9 }, ASK(.rate = 300e6, .parallel = 4),
	  BP_LIMIT_RATE, "rate 1.20 Gbit/s (4 streams at -b 300 Mbit/s) exceeds the server's "
	  "--max-rate 1.00 Gbit/s" },
	{ "unpaced under --max-rate (paced by the server)", { .max_rate = 1e9 }, ASK(.rate = 0),
	  BP_LIMIT_NONE, NULL },
};

static void test_cases(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct check_case *c = &cases[i];
		struct bp_limits_ask a = c->a;
		char msg[256] = "";
		enum bp_limit got;

		if (!a.time_ns)
			a.time_ns = 10 * S;
		if (!a.parallel)
			a.parallel = 1;
		got = bp_limits_check(&c->o, &a, msg, sizeof(msg));

		printf("# %s\n", c->what);
		CHECK_INT(got, c->want);
		if (c->msg)
			CHECK_STR(msg, c->msg);
		if (c->want == BP_LIMIT_NONE)
			CHECK_STR(msg, "");
	}
}

/* A refusal's line is cut to the buffer, never past it. */
static void test_short_buffer(void)
{
	struct bp_limits_ask a = ASK(.time_ns = 86400 * S, .parallel = 1);
	char msg[16];

	memset(msg, 'x', sizeof(msg));
	CHECK_INT(bp_limits_check(&defaults, &a, msg, sizeof(msg)), BP_LIMIT_DURATION);
	CHECK_INT(strlen(msg), sizeof(msg) - 1);
}

static void test_iperf3_dialect(void)
{
	CHECK(bp_limit_busy(BP_LIMIT_CLIENTS));
	CHECK(bp_limit_busy(BP_LIMIT_PER_CLIENT));
	CHECK(!bp_limit_busy(BP_LIMIT_DURATION));
	CHECK(!bp_limit_busy(BP_LIMIT_STREAMS));
	CHECK(!bp_limit_busy(BP_LIMIT_RATE));
	CHECK_INT(bp_limit_iperf3_code(BP_LIMIT_PER_CLIENT), BP_IE_ACCESSDENIED);
	CHECK_INT(bp_limit_iperf3_code(BP_LIMIT_DURATION), BP_IE_DURATION);
	CHECK_INT(bp_limit_iperf3_code(BP_LIMIT_STREAMS), BP_IE_NUMSTREAMS);
	CHECK_INT(bp_limit_iperf3_code(BP_LIMIT_RATE), BP_IE_TOTALRATE);
	CHECK_INT(bp_limit_iperf3_code(BP_LIMIT_NONE), BP_IE_NONE);
}

static struct sockaddr_in v4(const char *a)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(40000) };

	inet_pton(AF_INET, a, &sin.sin_addr);
	return sin;
}

static struct sockaddr_in6 v6(const char *a, uint16_t port, uint32_t scope)
{
	struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6, .sin6_port = htons(port),
				     .sin6_scope_id = scope };

	inet_pton(AF_INET6, a, &sin6.sin6_addr);
	return sin6;
}

static int key_of(const void *sa, socklen_t len, struct bp_client_key *k)
{
	return bp_client_key_from((const struct sockaddr *)sa, len, k);
}

static void test_client_keys(void)
{
	struct sockaddr_in a = v4("127.0.0.1"), b = v4("127.0.0.2");
	struct sockaddr_in6 mapped = v6("::ffff:127.0.0.1", 50000, 0), one = v6("::1", 1, 0);
	struct sockaddr_in6 ll1 = v6("fe80::1", 1, 2), ll2 = v6("fe80::1", 1, 3);
	struct sockaddr_in6 g1 = v6("2001:db8::1", 1, 2), g2 = v6("2001:db8::1", 2, 7);
	struct sockaddr_un_like { sa_family_t family; char path[30]; } unix_sa = { AF_UNIX, "" };
	struct bp_client_key ka, kb, km, k1, kl1, kl2, kg1, kg2;
	char s[64];

	CHECK_INT(key_of(&a, sizeof(a), &ka), 0);
	CHECK_INT(key_of(&b, sizeof(b), &kb), 0);
	CHECK_INT(key_of(&mapped, sizeof(mapped), &km), 0);
	CHECK_INT(key_of(&one, sizeof(one), &k1), 0);
	CHECK_INT(key_of(&ll1, sizeof(ll1), &kl1), 0);
	CHECK_INT(key_of(&ll2, sizeof(ll2), &kl2), 0);
	CHECK_INT(key_of(&g1, sizeof(g1), &kg1), 0);
	CHECK_INT(key_of(&g2, sizeof(g2), &kg2), 0);
	/* The port never matters: every connection of one host has its own. */
	CHECK(bp_client_key_equal(&ka, &km));  /* IPv4 and IPv4-mapped IPv6 are one client */
	CHECK(!bp_client_key_equal(&ka, &kb));
	CHECK(!bp_client_key_equal(&ka, &k1)); /* ::1 is not 127.0.0.1 */
	CHECK(!bp_client_key_equal(&kl1, &kl2)); /* one link-local address on two links */
	CHECK(bp_client_key_equal(&kg1, &kg2)); /* a global address's scope id is noise */
	CHECK_STR(bp_client_key_str(&ka, s, sizeof(s)), "127.0.0.1");
	CHECK_STR(bp_client_key_str(&km, s, sizeof(s)), "127.0.0.1");
	CHECK_STR(bp_client_key_str(&k1, s, sizeof(s)), "::1");
	CHECK_STR(bp_client_key_str(&kg1, s, sizeof(s)), "2001:db8::1");
	CHECK_INT(key_of(&unix_sa, sizeof(unix_sa), &ka), -EAFNOSUPPORT);
	/* An address shorter than its family's is not read past its end. */
	CHECK_INT(key_of(&a, sizeof(a) - 1, &ka), -EAFNOSUPPORT);
	CHECK_INT(key_of(&one, sizeof(one) - 1, &ka), -EAFNOSUPPORT);
}

/* The count per address: admitted tests only, IPv4 and mapped alike. */
static void test_running_from(void)
{
	static const char *const peers[] = { "127.0.0.1", "::ffff:127.0.0.1", "127.0.0.1",
					     "127.0.0.2", "::1", "127.0.0.1" };
	static const bool admitted[] = { true, true, false, true, true, true };
	struct srv s = { .o = &defaults };
	struct srv_session *ss[6];
	struct bp_client_key k127, k2, k6, other;

	for (size_t i = 0; i < 6; i++) {
		struct sockaddr_in6 sa = v6(strchr(peers[i], ':') ? peers[i] : "::", 1, 0);
		struct sockaddr_in sa4 = v4(peers[i]);

		ss[i] = calloc(1, sizeof(*ss[i]));
		if (strchr(peers[i], ':'))
			key_of(&sa, sizeof(sa), &ss[i]->client);
		else
			key_of(&sa4, sizeof(sa4), &ss[i]->client);
		ss[i]->admitted = admitted[i];
		ss[i]->next = s.sessions;
		s.sessions = ss[i];
	}
	k127 = ss[0]->client;
	k2 = ss[3]->client;
	k6 = ss[4]->client;
	memset(&other, 0, sizeof(other));
	other.addr[15] = 9;
	CHECK_INT(srv_limits_running_from(&s, &k127), 3); /* 2 of 4 from 127.0.0.1 not admitted */
	CHECK_INT(srv_limits_running_from(&s, &k2), 1);
	CHECK_INT(srv_limits_running_from(&s, &k6), 1);
	CHECK_INT(srv_limits_running_from(&s, &other), 0);
	for (size_t i = 0; i < 6; i++)
		free(ss[i]);
}

int main(void)
{
	test_cases();
	test_short_buffer();
	test_iperf3_dialect();
	test_client_keys();
	test_running_from();
	return tap_done();
}
