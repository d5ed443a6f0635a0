/*
 * The server's admission limits (server_limits.h): each limit at, just past and far past
 * its bound (a sum that would overflow included), which one a refusal names when several
 * are broken, the message and its retry time, the iperf3 dialect, the client address and
 * subnet a test counts under, and (on the fake clock) when a test whose streams do not
 * come is released or gives its slot to a newcomer, and when a slot is expected to free.
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
#define ASK(...) { .client = "192.0.2.7", .subnet = "192.0.2.0/24", __VA_ARGS__ }

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
	  "server busy: 64 tests running (--max-clients 64); try again in 1 s" },
	/* The retry time: the earliest slot of the count that refused, rounded up. */
	{ "every slot taken, one frees in 2.5 s", DEFAULTS, ASK(.running = 64, .now_ns = 100 * S,
	  .due_ns = 102 * S + S / 2, .due_client_ns = 200 * S), BP_LIMIT_CLIENTS,
	  "server busy: 64 tests running (--max-clients 64); try again in 3 s" },
	{ "this address holds its share", DEFAULTS, ASK(.running = 4, .running_from_client = 4,
	  .running_from_subnet = 4, .now_ns = 100 * S, .due_ns = 101 * S,
	  .due_client_ns = 110 * S), BP_LIMIT_PER_CLIENT, "server busy for 192.0.2.7: 4 tests "
	  "from this address running (--max-per-client 4); try again in 10 s" },
	/* A subnet holds all but a quarter of --max-clients: 48 of 64. */
	{ "a subnet one short of its share", DEFAULTS, ASK(.running = 60,
	  .running_from_subnet = 47), BP_LIMIT_NONE, NULL },
	{ "a subnet at its share", DEFAULTS, ASK(.running = 60, .running_from_subnet = 48,
	  .now_ns = 100 * S, .due_ns = 100 * S, .due_subnet_ns = 103 * S), BP_LIMIT_PER_SUBNET,
	  "server busy for 192.0.2.0/24: 48 tests from this subnet running (a subnet's share: "
	  "48 of --max-clients 64); try again in 3 s" },
	{ "the share of 16 slots is 12", { .max_clients = 16 }, ASK(.running = 12,
	  .running_from_subnet = 12), BP_LIMIT_PER_SUBNET, NULL },
	{ "under 4 slots a subnet may hold all", { .max_clients = 3 }, ASK(.running = 2,
	  .running_from_subnet = 2), BP_LIMIT_NONE, NULL },
	{ "the address's count comes before the subnet's", DEFAULTS, ASK(.running = 60,
	  .running_from_client = 4, .running_from_subnet = 48), BP_LIMIT_PER_CLIENT, NULL },
	{ "no --max-clients, no subnet share", { .max_clients = 0 }, ASK(.running = 1000,
	  .running_from_subnet = 1000), BP_LIMIT_NONE, NULL },
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
	CHECK(bp_limit_busy(BP_LIMIT_PER_SUBNET));
	CHECK_INT(bp_limit_iperf3_code(BP_LIMIT_PER_SUBNET), BP_IE_ACCESSDENIED);
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

static struct bp_client_key key4(const char *a)
{
	struct sockaddr_in sin = v4(a);
	struct bp_client_key k;

	key_of(&sin, sizeof(sin), &k);
	return k;
}

static struct bp_client_key key6(const char *a, uint32_t scope)
{
	struct sockaddr_in6 sin6 = v6(a, 1, scope);
	struct bp_client_key k;

	key_of(&sin6, sizeof(sin6), &k);
	return k;
}

/* IPv4 /24, IPv6 /64 (a link-local one per link); the two families never share one. */
static void test_subnets(void)
{
	struct bp_client_key a = key4("127.0.1.5"), b = key4("127.0.1.200");
	struct bp_client_key c = key4("127.0.2.1"), m = key6("::ffff:127.0.1.9", 0);
	struct bp_client_key g1 = key6("2001:db8::1", 0), g2 = key6("2001:db8::ffff:1:2", 0);
	struct bp_client_key g3 = key6("2001:db8:0:1::1", 0), one = key6("::1", 0);
	struct bp_client_key l1 = key6("fe80::1", 2), l2 = key6("fe80::2", 2);
	struct bp_client_key l3 = key6("fe80::2", 3), lo = key4("127.0.0.1");
	struct bp_client_key z = key4("0.0.0.1"), z6 = key6("::2", 0);
	char s[64];

	CHECK(bp_client_key_same_subnet(&a, &b));
	CHECK(!bp_client_key_same_subnet(&a, &c));
	CHECK(bp_client_key_same_subnet(&a, &m)); /* IPv4-mapped is IPv4 */
	CHECK(bp_client_key_same_subnet(&g1, &g2));
	CHECK(!bp_client_key_same_subnet(&g1, &g3));
	CHECK(bp_client_key_same_subnet(&l1, &l2));
	CHECK(!bp_client_key_same_subnet(&l2, &l3));
	/* ::ffff:0.0.0.1 and ::2 share the first 64 bits; they are still two families. */
	CHECK(!bp_client_key_same_subnet(&z, &z6));
	CHECK(!bp_client_key_same_subnet(&lo, &one));
	CHECK_STR(bp_client_subnet_str(&b, s, sizeof(s)), "127.0.1.0/24");
	CHECK_STR(bp_client_subnet_str(&m, s, sizeof(s)), "127.0.1.0/24");
	CHECK_STR(bp_client_subnet_str(&g2, s, sizeof(s)), "2001:db8::/64");
	CHECK_STR(bp_client_subnet_str(&l1, s, sizeof(s)), "fe80::/64");
	CHECK_INT(bp_limits_subnet_share(64), 48);
	CHECK_INT(bp_limits_subnet_share(16), 12);
	CHECK_INT(bp_limits_subnet_share(4), 3);
	CHECK_INT(bp_limits_subnet_share(3), 3);
	CHECK_INT(bp_limits_subnet_share(1), 1);
	CHECK_INT(bp_limits_subnet_share(0), 0);
}

/*
 * On the fake clock: a test admitted and connecting no stream is due for release exactly
 * BP_SERVER_STREAMS_WAIT_NS later; a stream that comes moves the release on; a shorter
 * --idle-timeout is the wait; a slot's due time and the retry seconds a refusal prints.
 */
static void test_streams_wait(void)
{
	struct bp_server_opts o = DEFAULTS;
	uint64_t admitted, due;
	struct bp_slot sl;

	o.idle_timeout_ns = 10 * S;
	bp_clock_fake_start(1000 * S);
	admitted = bp_now_ns();
	due = bp_limits_streams_due_ns(&o, admitted);
	CHECK_INT(due - admitted, 5 * S);
	bp_clock_fake_advance(5 * S - 1);
	CHECK(bp_now_ns() < due);        /* not a ns early */
	bp_clock_fake_advance(1);
	CHECK(bp_now_ns() >= due);       /* released at 5 s, not at the 10 s idle timeout */
	/* a stream at 2 s: the next has 5 s from then */
	bp_clock_fake_start(1000 * S);
	bp_clock_fake_advance(2 * S);
	due = bp_limits_streams_due_ns(&o, bp_now_ns());
	CHECK_INT(due, 1007 * S);
	o.idle_timeout_ns = 1 * S;
	CHECK_INT(bp_limits_streams_due_ns(&o, bp_now_ns()), 1003 * S);
	o.idle_timeout_ns = 0;
	CHECK_INT(bp_limits_streams_due_ns(&o, bp_now_ns()), 1007 * S);

	o.idle_timeout_ns = 10 * S;
	sl = (struct bp_slot){ .since_ns = bp_now_ns() };           /* waiting for streams */
	CHECK_INT(bp_slot_due_ns(&o, &sl), 1007 * S);
	sl = (struct bp_slot){ .running = true, .since_ns = 1000 * S, .length_ns = 30 * S };
	CHECK_INT(bp_slot_due_ns(&o, &sl), 1030 * S);               /* its -t (and -O) */
	sl.ending = true;
	CHECK_INT(bp_slot_due_ns(&o, &sl), 0);                      /* now */
	CHECK_INT(bp_limits_retry_s(bp_now_ns(), 1030 * S), 28);
	CHECK_INT(bp_limits_retry_s(bp_now_ns(), bp_now_ns() + 1), 1);
	CHECK_INT(bp_limits_retry_s(bp_now_ns(), bp_now_ns() + 3 * S), 3);
	CHECK_INT(bp_limits_retry_s(bp_now_ns(), bp_now_ns() + 3 * S + 1), 4);
	CHECK_INT(bp_limits_retry_s(bp_now_ns(), 0), 1);           /* due already */
	CHECK_INT(bp_limits_retry_s(0, UINT64_MAX), 86400);
	bp_clock_fake_stop();
}

/*
 * On the fake clock: a full server's newcomer takes the slot of a test silent 1 s in its
 * streams, from a subnet holding more slots than its own; never a second early, never from
 * its own subnet or a smaller one.
 */
static void test_stalled(void)
{
	struct bp_stallers *st = calloc(1, sizeof(*st));
	struct bp_client_key att = key4("127.0.3.1"), real = key4("127.0.2.1");
	uint64_t since;

	bp_clock_fake_start(500 * S);
	since = bp_now_ns();
	bp_clock_fake_advance(S - 1);
	CHECK(!bp_limits_may_take(bp_now_ns(), since, 4, 0, false));  /* not a ns early */
	bp_clock_fake_advance(1);
	CHECK(bp_limits_may_take(bp_now_ns(), since, 4, 0, false));
	CHECK(bp_limits_may_take(bp_now_ns(), since, 4, 3, false));
	CHECK(!bp_limits_may_take(bp_now_ns(), since, 4, 4, false)); /* an equal share keeps it */
	CHECK(!bp_limits_may_take(bp_now_ns(), since, 1, 2, false));
	CHECK(!bp_limits_may_take(bp_now_ns(), since, 4, 0, true));  /* a staller takes nothing */
	/* a stream that came resets the wait */
	since = bp_now_ns();
	bp_clock_fake_advance(S / 2);
	CHECK(!bp_limits_may_take(bp_now_ns(), since, 4, 0, false));
	/* a time before the wait began (never, with one clock) takes nothing */
	CHECK(!bp_limits_may_take(since - 1, since, 4, 0, false));

	/* The stallers: remembered 60 s from the last release, refreshed, not added twice. */
	CHECK(!bp_stallers_has(st, &att, bp_now_ns()));
	bp_stallers_note(st, &att, bp_now_ns());
	CHECK(bp_stallers_has(st, &att, bp_now_ns()));
	CHECK(!bp_stallers_has(st, &real, bp_now_ns()));
	bp_clock_fake_advance(30 * S);
	bp_stallers_note(st, &att, bp_now_ns());            /* released again: 60 s from now */
	CHECK_INT(st->next, 1);
	bp_clock_fake_advance(60 * S - 1);
	CHECK(bp_stallers_has(st, &att, bp_now_ns()));
	bp_clock_fake_advance(1);
	CHECK(!bp_stallers_has(st, &att, bp_now_ns()));
	/* BP_STALLERS other addresses push the oldest out of the ring */
	bp_stallers_note(st, &att, bp_now_ns());
	for (int i = 0; i < BP_STALLERS; i++) {
		struct bp_client_key k = key4("10.0.0.0");

		k.addr[14] = (unsigned char)(i / 256);
		k.addr[15] = (unsigned char)(i % 256);
		bp_stallers_note(st, &k, bp_now_ns());
	}
	CHECK(!bp_stallers_has(st, &att, bp_now_ns()));
	free(st);
	bp_clock_fake_stop();
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
	test_subnets();
	test_streams_wait();
	test_stalled();
	return tap_done();
}
