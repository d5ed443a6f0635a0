/*
 * core/log_limit.h: the one limiter of the lines peers cause, per address and over all,
 * and the sum of what it left out, on the injected clock (core/clock.h): a flood's
 * timing is exact here, never "about a second".
 */
#include <stdio.h>
#include <string.h>

#include "core/clock.h"
#include "core/log_limit.h"
#include "tap.h"

#define MS BP_NS_PER_MS
#define T0 (100 * BP_NS_PER_SEC)  /* a monotonic clock's reading; 0 is "never" */

static void check_keys(void)
{
	char key[48];

	bp_log_limit_key("127.0.0.1:40112", key, sizeof(key));
	CHECK_STR(key, "127.0.0.1");
	/* an IPv6 address counts by its /64, as --max-pending-per-addr does */
	bp_log_limit_key("[2001:db8:0:1:a::1]:5201", key, sizeof(key));
	CHECK_STR(key, "2001:db8:0:1::/64");
	bp_log_limit_key("[::1]:5201", key, sizeof(key));
	CHECK_STR(key, "::/64");
	bp_log_limit_key(NULL, key, sizeof(key));
	CHECK_STR(key, "");
	bp_log_limit_key("?", key, sizeof(key));
	CHECK_STR(key, "");
	bp_log_limit_key("[x\n]:1", key, sizeof(key));
	CHECK_STR(key, "");
}

/* One address: a burst, then its rate; another address is not held back by it. */
static void check_one_address(void)
{
	static struct bp_log_limit l;
	int passed = 0;

	for (int i = 0; i < 1000; i++)
		passed += bp_log_limit_pass(&l, "127.0.0.1:40112", BP_LOG_INFO, T0);
	CHECK_INT(passed, BP_LOG_ADDR_BURST);
	CHECK(!bp_log_limit_pass(&l, "127.0.0.1:40113", BP_LOG_INFO, T0 + 199 * MS));
	CHECK(bp_log_limit_pass(&l, "127.0.0.1:40114", BP_LOG_INFO, T0 + 200 * MS));
	CHECK(!bp_log_limit_pass(&l, "127.0.0.1:40114", BP_LOG_INFO, T0 + 201 * MS));
	CHECK(bp_log_limit_pass(&l, "127.0.0.2:1", BP_LOG_INFO, T0 + 201 * MS));
	/* a second's flood from one address, its burst spent: 5 lines, whatever it sends */
	passed = 0;
	for (uint64_t t = T0 + 202 * MS; t < T0 + 1202 * MS; t += MS)
		passed += bp_log_limit_pass(&l, "127.0.0.1:40112", BP_LOG_INFO, t);
	CHECK_INT(passed, BP_LOG_ADDR_PER_SEC);
	CHECK_INT(l.suppressed, 980 + 1 + 1 + 995);
	CHECK_INT(l.addrs[0].suppressed, 980 + 1 + 1 + 995);
	/* a quiet while brings the burst back */
	passed = 0;
	for (int i = 0; i < 100; i++)
		passed += bp_log_limit_pass(&l, "127.0.0.1:1", BP_LOG_INFO, T0 + 10000 * MS);
	CHECK_INT(passed, BP_LOG_ADDR_BURST);
}

/* Many addresses: the bound over all holds, each address's own bound aside. */
static void check_all(void)
{
	static struct bp_log_limit l;
	char peer[32];
	int passed = 0;

	for (int i = 0; i < 50; i++) {
		snprintf(peer, sizeof(peer), "10.0.0.%d:999", i + 1);
		for (int k = 0; k < 10; k++)
			passed += bp_log_limit_pass(&l, peer, BP_LOG_INFO, T0);
	}
	CHECK_INT(passed, BP_LOG_ALL_BURST);
	passed = 0;
	for (uint64_t t = T0 + MS; t <= T0 + 1000 * MS; t += MS) {
		snprintf(peer, sizeof(peer), "10.1.%d.%d:1", (int)(t / MS % 200), (int)(t % 7));
		passed += bp_log_limit_pass(&l, peer, BP_LOG_INFO, t);
	}
	CHECK_INT(passed, BP_LOG_ALL_PER_SEC);
}

/* The sum: once the flood is over, or every 10 s while it lasts; then counted afresh. */
static void check_sum(void)
{
	static struct bp_log_limit l;
	enum bp_log_level level = BP_LOG_TRACE;
	char buf[512];

	CHECK(!bp_log_limit_sum(&l, T0, true, buf, sizeof(buf), &level));
	for (int i = 0; i < 30; i++)
		bp_log_limit_pass(&l, "127.0.0.1:1", BP_LOG_INFO, T0);
	for (int i = 0; i < 22; i++)
		bp_log_limit_pass(&l, "127.0.0.2:1", i == 21 ? BP_LOG_WARN : BP_LOG_DEBUG,
				  T0 + 500 * MS);
	bp_log_limit_pass(&l, "[2001:db8::1]:1", BP_LOG_INFO, T0 + 500 * MS);
	CHECK(!bp_log_limit_sum(&l, T0 + 1499 * MS, false, buf, sizeof(buf), &level));
	CHECK(bp_log_limit_sum(&l, T0 + 1500 * MS, false, buf, sizeof(buf), &level));
	CHECK_STR(buf, "log: 12 lines from peers suppressed over 0.5 s (10 from 127.0.0.1, 2 "
		  "from 127.0.0.2): at most 5 a second from one address (a burst of 20), 20 a "
		  "second in all (a burst of 100)");
	CHECK_INT(level, BP_LOG_WARN);
	CHECK(!bp_log_limit_sum(&l, T0 + 1501 * MS, true, buf, sizeof(buf), &level));
	CHECK_INT(l.addrs[0].suppressed, 0);

	/* a flood that goes on: a sum every 10 s, however busy */
	uint64_t t = T0 + 20000 * MS;
	int sums = 0;

	for (; t < T0 + 41000 * MS; t += 10 * MS) {
		bp_log_limit_pass(&l, "127.0.0.1:1", BP_LOG_INFO, t);
		sums += bp_log_limit_sum(&l, t, false, buf, sizeof(buf), &level);
	}
	CHECK_INT(sums, 2);
	/* more addresses than are named, and more than are kept apart */
	memset(&l, 0, sizeof(l));
	for (int i = 0; i < 5; i++)
		for (int k = 0; k < BP_LOG_ADDR_BURST + 5 - i; k++) {
			snprintf(buf, sizeof(buf), "192.0.2.%d:1", i + 1);
			bp_log_limit_pass(&l, buf, BP_LOG_INFO, T0);
		}
	CHECK(bp_log_limit_sum(&l, T0, true, buf, sizeof(buf), &level));
	CHECK(strstr(buf, "(5 from 192.0.2.1, 4 from 192.0.2.2, 3 from 192.0.2.3, 3 from 2 "
		     "other addresses)") != NULL);
	for (int i = 0; i < BP_LOG_ADDRS + 10; i++)
		for (int k = 0; k < 30; k++) {
			snprintf(buf, sizeof(buf), "10.2.0.%d:1", i + 1);
			bp_log_limit_pass(&l, buf, BP_LOG_INFO, T0 + 60000 * MS + (uint64_t)i);
		}
	CHECK(bp_log_limit_sum(&l, T0 + 60000 * MS + 100, true, buf, sizeof(buf), &level));
	CHECK(strstr(buf, "from other addresses)") != NULL);
	printf("# %s\n", buf);
}

struct kept {
	char text[4096];
	int lines;
};

static void keep(void *arg, enum bp_log_level level, const char *line)
{
	struct kept *k = arg;
	size_t used = strlen(k->text);

	snprintf(k->text + used, sizeof(k->text) - used, "%d:%s|", (int)level, line);
	k->lines++;
}

/* The process's limiter, as a server uses it, on the fake clock. */
static void check_process_limiter(void)
{
	struct kept k = { .text = "" };

	bp_log_set_level(BP_LOG_INFO);
	bp_clock_fake_start(T0);
	bp_log_set_thread_sink(keep, &k);
	for (int i = 0; i < 1000; i++)
		bp_info_peer("198.51.100.7:4000", "198.51.100.7:4000: iperf3 username refused "
			     "(user '%s': wrong password)", "x\nFORGED LINE");
	/* a level not shown neither goes out nor counts */
	bp_debug_peer("198.51.100.7:4000", "not at this level");
	CHECK_INT(k.lines, BP_LOG_ADDR_BURST);
	CHECK(strstr(k.text, "2:198.51.100.7:4000: iperf3 username refused (user "
		     "'x\\x0AFORGED LINE': wrong password)|") == k.text);
	bp_clock_fake_advance(999 * MS);
	bp_log_peer_flush(false);
	CHECK_INT(k.lines, BP_LOG_ADDR_BURST);
	bp_clock_fake_advance(1 * MS);
	bp_log_peer_flush(false);
	CHECK_INT(k.lines, BP_LOG_ADDR_BURST + 1);
	CHECK(strstr(k.text, "|2:log: 980 lines from peers suppressed over 0.0 s (980 from "
		     "198.51.100.7): at most 5") != NULL);
	bp_log_peer_flush(true);
	CHECK_INT(k.lines, BP_LOG_ADDR_BURST + 1);
	/* a sum due goes out before the next line, without a flush */
	for (int i = 0; i < 30; i++)
		bp_warn_peer(NULL, "accept: %s", "Too many open files");
	bp_clock_fake_advance(2 * BP_NS_PER_SEC);
	bp_info_peer("198.51.100.8:1", "a test's line");
	CHECK(strstr(k.text, "|1:log: 10 lines from peers suppressed over 0.0 s (10 from no "
		     "address): at most") != NULL);
	CHECK(strstr(k.text, "|2:198.51.100.8:1: a test's line|") == NULL);
	CHECK(strstr(k.text, "|2:a test's line|") != NULL);
	bp_log_set_thread_sink(NULL, NULL);
	bp_clock_fake_stop();
}

int main(void)
{
	check_keys();
	check_one_address();
	check_all();
	check_sum();
	check_process_limiter();
	return tap_done();
}
