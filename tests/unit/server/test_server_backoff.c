/*
 * The back-off for wrong key proofs (server_backoff.h) on the fake clock (core/clock.h), so
 * that each wait is checked to the nanosecond: the free tries, the doubling to its cap, the
 * reservation a try makes (parallel tries gain nothing), a sequential guesser's tries in
 * 3 s, other addresses untouched, an IPv6 /64 counted as one, the record cleared by a right
 * proof or 60 s of quiet, the global cap, and a full table.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include "core/clock.h"
#include "server/server_backoff.h"
#include "tap.h"

#define MS BP_NS_PER_MS
#define S BP_NS_PER_SEC

static struct bp_addr v4(const char *s)
{
	struct bp_addr a;
	struct sockaddr_in *in = (struct sockaddr_in *)&a.ss;

	memset(&a, 0, sizeof(a));
	in->sin_family = AF_INET;
	inet_pton(AF_INET, s, &in->sin_addr);
	a.len = sizeof(*in);
	return a;
}

static struct bp_addr v6(const char *s)
{
	struct bp_addr a;
	struct sockaddr_in6 *in = (struct sockaddr_in6 *)&a.ss;

	memset(&a, 0, sizeof(a));
	in->sin6_family = AF_INET6;
	inet_pton(AF_INET6, s, &in->sin6_addr);
	a.len = sizeof(*in);
	return a;
}

static void delays(void)
{
	static const uint64_t want[] = { 0, 0, 0, 0, 125 * MS, 250 * MS, 500 * MS, 1 * S,
					 2 * S, 2 * S, 2 * S };

	for (uint32_t n = 0; n < sizeof(want) / sizeof(want[0]); n++)
		CHECK_INT(srv_backoff_delay_ns(n), want[n]);
	CHECK_INT(srv_backoff_delay_ns(UINT32_MAX), 2 * S);
}

/* A guesser that tries again the moment it may, and fails each time. */
static void guesser(void)
{
	struct srv_backoff b = { 0 };
	struct bp_addr g = v4("192.0.2.1"), other = v4("192.0.2.2");
	uint64_t t0, wait;
	int tries = 0;

	bp_clock_fake_start(1000 * S);
	t0 = bp_now_ns();
	for (;;) {
		wait = srv_backoff_try(&b, &g);
		if (bp_now_ns() + wait >= t0 + 3 * S)
			break;
		if (wait) {
			bp_clock_fake_advance(wait);
			continue;
		}
		tries++;
		srv_backoff_fail(&b, &g);
		/* nobody else is held meanwhile */
		CHECK_INT(srv_backoff_try(&b, &other), 0);
		bp_clock_fake_advance(1 * MS);  /* a round trip */
	}
	/* 3 free (0-2 ms), then at 3, 128, 378, 878 and 1,878 ms */
	CHECK_INT(tries, 8);
	/* the 8th was at 1,878 ms: then one in 2 s */
	CHECK_INT(srv_backoff_try(&b, &g), t0 + 3878 * MS - bp_now_ns());
	srv_backoff_free(&b);
	bp_clock_fake_stop();
}

/* A try reserves the wait it would earn: ten tries at the same instant get one through. */
static void parallel(void)
{
	struct srv_backoff b = { 0 };
	struct bp_addr g = v4("192.0.2.1");
	int through = 0;

	bp_clock_fake_start(1000 * S);
	for (int i = 0; i < 4; i++)
		srv_backoff_fail(&b, &g);
	bp_clock_fake_advance(125 * MS);
	for (int i = 0; i < 10; i++)
		through += srv_backoff_try(&b, &g) == 0;
	CHECK_INT(through, 1);
	CHECK_INT(srv_backoff_try(&b, &g), 250 * MS);
	srv_backoff_free(&b);
	bp_clock_fake_stop();
}

/* Cleared by a right proof, and by 60 s without a wrong one. */
static void forgiven(void)
{
	struct srv_backoff b = { 0 };
	struct bp_addr g = v4("192.0.2.1");

	bp_clock_fake_start(1000 * S);
	for (int i = 0; i < 6; i++)
		srv_backoff_fail(&b, &g);
	CHECK_INT(srv_backoff_try(&b, &g), 500 * MS);
	srv_backoff_pass(&b, &g);
	CHECK_INT(srv_backoff_try(&b, &g), 0);
	for (int i = 0; i < 8; i++)
		srv_backoff_fail(&b, &g);
	CHECK_INT(srv_backoff_try(&b, &g), 2 * S);
	bp_clock_fake_advance(59 * S);
	CHECK_INT(srv_backoff_try(&b, &g), 0);  /* past its wait: a try, reserving 2 s */
	CHECK(srv_backoff_try(&b, &g) > 0);
	bp_clock_fake_advance(1 * S);          /* 60 s since the last wrong proof */
	CHECK_INT(srv_backoff_try(&b, &g), 0);
	CHECK_INT(srv_backoff_try(&b, &g), 0);  /* a clean address again: no reservation */
	srv_backoff_free(&b);
	bp_clock_fake_stop();
}

/* An IPv6 /64 is one address; a v4-mapped address is its IPv4 one. */
static void prefixes(void)
{
	struct srv_backoff b = { 0 };
	struct bp_addr a = v6("2001:db8:1:2::1"), same64 = v6("2001:db8:1:2:ffff::9"),
		       other64 = v6("2001:db8:1:3::1"), mapped = v6("::ffff:192.0.2.9"),
		       plain = v4("192.0.2.9");

	bp_clock_fake_start(1000 * S);
	for (int i = 0; i < 5; i++) {
		srv_backoff_fail(&b, &a);
		srv_backoff_fail(&b, &mapped);
	}
	CHECK_INT(srv_backoff_try(&b, &same64), 250 * MS);
	CHECK_INT(srv_backoff_try(&b, &other64), 0);
	CHECK_INT(srv_backoff_try(&b, &plain), 250 * MS);
	srv_backoff_free(&b);
	bp_clock_fake_stop();
}

/*
 * The global cap: addresses with a wrong proof on record share 20 tries a second; a clean
 * address is never held.
 */
static void global(void)
{
	struct srv_backoff b = { 0 };
	struct bp_addr clean = v4("198.51.100.1");
	char name[32];
	int through = 0;

	bp_clock_fake_start(1000 * S);
	for (int i = 0; i < 50; i++) {
		struct bp_addr a;

		snprintf(name, sizeof(name), "192.0.2.%d", i + 1);
		a = v4(name);
		srv_backoff_fail(&b, &a);
		through += srv_backoff_try(&b, &a) == 0;
	}
	CHECK_INT(through, 20);
	CHECK_INT(srv_backoff_try(&b, &clean), 0);
	CHECK_INT(b.held, 30);
	bp_clock_fake_advance(1 * S);
	{
		struct bp_addr a = v4("192.0.2.50");

		CHECK_INT(srv_backoff_try(&b, &a), 0);  /* a new second */
	}
	srv_backoff_free(&b);
	bp_clock_fake_stop();
}

/* More addresses than records: the one quiet the longest is forgotten. */
static void full(void)
{
	struct srv_backoff b = { 0 };
	struct bp_addr first = v4("10.0.0.0");
	char name[32];

	bp_clock_fake_start(1000 * S);
	for (int i = 0; i < 5; i++)
		srv_backoff_fail(&b, &first);
	for (int i = 1; i <= SRV_BACKOFF_RECORDS; i++) {
		struct bp_addr a;

		bp_clock_fake_advance(1 * MS);
		snprintf(name, sizeof(name), "10.0.%d.%d", i / 256, i % 256);
		a = v4(name);
		srv_backoff_fail(&b, &a);
	}
	CHECK_INT(srv_backoff_try(&b, &first), 0);  /* forgotten */
	{
		struct bp_addr last = v4("10.0.4.0");  /* the 1,024th */
		uint64_t w;

		srv_backoff_fail(&b, &last);
		srv_backoff_fail(&b, &last);
		srv_backoff_fail(&b, &last);
		w = srv_backoff_try(&b, &last);
		CHECK_INT(w, 125 * MS);
	}
	srv_backoff_free(&b);
	bp_clock_fake_stop();
}

int main(void)
{
	delays();
	guesser();
	parallel();
	forgiven();
	prefixes();
	global();
	full();
	return tap_done();
}
