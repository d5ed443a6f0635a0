/*
 * Control protocol: cookie, state bytes and length-prefixed JSON over a real socketpair
 * (short reads, EOF, deadlines, signals), and the incremental decoder against the
 * blocking codec, one byte at a time, and against garbage.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/signals.h"
#include "proto/control.h"
#include "tap.h"

/*
 * The deadlines' own tests run on the fake clock (core/clock.h), where a wait that times out
 * moves the time on to its deadline: they end at exactly DEADLINE_MS. A signal from another
 * thread needs the real clock: a wait it ends must end well before its 5 s deadline, and
 * LATE_MS, half of that, is a bound no loaded machine reaches but one that a wait that missed
 * the signal (and so ran to its deadline) cannot pass.
 */
#define DEADLINE_MS 50
#define LATE_MS 2500

static uint64_t in_ms(unsigned ms)
{
	return bp_now_ns() + ms * BP_NS_PER_MS;
}

static void pair(int sv[2])
{
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		perror("socketpair");
		exit(99);
	}
}

static void close_pair(int sv[2])
{
	close(sv[0]);
	close(sv[1]);
}

static void test_cookie(void)
{
	char a[BP_COOKIE_LEN], b[BP_COOKIE_LEN], bad[BP_COOKIE_LEN];

	CHECK_INT(bp_cookie_make(a), 0);
	CHECK_INT(bp_cookie_make(b), 0);
	CHECK_INT(strlen(a), 36);
	CHECK(strspn(a, "abcdefghijklmnopqrstuvwxyz234567") == 36);
	CHECK(bp_cookie_valid(a));
	CHECK(bp_cookie_valid(b));
	CHECK(strcmp(a, b) != 0);
	CHECK(bp_cookie_valid("abcdefghijklmnopqrstuvwxyz2345672345"));

	/* One bad character anywhere, or a missing/early NUL, makes it invalid. */
	const char *badc = "A1890.-_ ~\xff";
	for (const char *c = badc; *c; c++) {
		memcpy(bad, a, sizeof(bad));
		bad[17] = *c;
		CHECK(!bp_cookie_valid(bad));
	}
	memcpy(bad, a, sizeof(bad));
	bad[36] = 'a';
	CHECK(!bp_cookie_valid(bad));
	memcpy(bad, a, sizeof(bad));
	bad[10] = '\0';
	CHECK(!bp_cookie_valid(bad));
	/* iperf3 before 3.2 sent hostname.time text: not a cookie we accept. */
	CHECK(!bp_cookie_valid("myhost.1494353520.123456.6b8b4567327"));
}

static void test_cookie_wire(void)
{
	char c[BP_COOKIE_LEN], got[BP_COOKIE_LEN];
	int sv[2];

	pair(sv);
	CHECK_INT(bp_cookie_make(c), 0);
	CHECK_INT(bp_proto_write_all(sv[0], c, BP_COOKIE_LEN, in_ms(1000)), 0);
	CHECK_INT(bp_proto_read_all(sv[1], got, BP_COOKIE_LEN, in_ms(1000)), 0);
	CHECK(bp_cookie_valid(got));
	CHECK_STR(got, c);
	close_pair(sv);
}

static void test_state_names(void)
{
	static const struct { int state; const char *name; } t[] = {
		{ BP_TEST_START, "TEST_START" }, { BP_TEST_RUNNING, "TEST_RUNNING" },
		{ BP_TEST_END, "TEST_END" }, { BP_PARAM_EXCHANGE, "PARAM_EXCHANGE" },
		{ BP_CREATE_STREAMS, "CREATE_STREAMS" },
		{ BP_SERVER_TERMINATE, "SERVER_TERMINATE" },
		{ BP_CLIENT_TERMINATE, "CLIENT_TERMINATE" },
		{ BP_EXCHANGE_RESULTS, "EXCHANGE_RESULTS" },
		{ BP_DISPLAY_RESULTS, "DISPLAY_RESULTS" }, { BP_IPERF_START, "IPERF_START" },
		{ BP_IPERF_DONE, "IPERF_DONE" }, { BP_ACCESS_DENIED, "ACCESS_DENIED" },
		{ BP_SERVER_ERROR, "SERVER_ERROR" },
		{ 0, "UNKNOWN" }, { 3, "UNKNOWN" }, { -3, "UNKNOWN" }, { 127, "UNKNOWN" },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		CHECK_STR(bp_proto_state_name(t[i].state), t[i].name);
	/* The wire values iperf3 uses (esnet/iperf src/iperf_api.h: IPERF_DONE 16, SERVER_ERROR -2). */
	CHECK_INT(BP_IPERF_DONE, 16);
	CHECK_INT(BP_SERVER_ERROR, -2);
}

static void test_states(void)
{
	static const int states[] = {
		BP_PARAM_EXCHANGE, BP_CREATE_STREAMS, BP_TEST_START, BP_TEST_RUNNING,
		BP_TEST_END, BP_EXCHANGE_RESULTS, BP_DISPLAY_RESULTS, BP_IPERF_DONE,
		BP_ACCESS_DENIED, BP_SERVER_ERROR, -128, 127,
	};
	unsigned char raw;
	int sv[2], st;

	pair(sv);
	for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++) {
		st = 99;
		CHECK_INT(bp_proto_send_state(sv[0], states[i], in_ms(1000)), 0);
		CHECK_INT(bp_proto_recv_state(sv[1], &st, in_ms(1000)), 0);
		CHECK_INT(st, states[i]);
	}
	/* A negative state is one byte on the wire, two's complement, as iperf3's char. */
	CHECK_INT(bp_proto_send_state(sv[0], BP_SERVER_ERROR, in_ms(1000)), 0);
	CHECK_INT(bp_proto_read_all(sv[1], &raw, 1, in_ms(1000)), 0);
	CHECK_INT(raw, 0xfe);
	CHECK_INT(bp_proto_send_state(sv[0], 128, in_ms(1000)), -EINVAL);
	CHECK_INT(bp_proto_send_state(sv[0], -129, in_ms(1000)), -EINVAL);
	close(sv[0]);
	CHECK_INT(bp_proto_recv_state(sv[1], &st, in_ms(1000)), -ECONNRESET);
	close(sv[1]);
}

static void test_json_round_trip(void)
{
	json_t *msg = json_pack("{s:s, s:i, s:f, s:b, s:[{s:I}], s:s}",
				"tcp", "x", "time", 10, "bandwidth", 1.5e9, "reverse", 1,
				"streams", "bytes", (json_int_t)123456789012LL,
				"title", "grüße \"quoted\"");
	json_t *got = NULL, *got2 = NULL, *empty = json_object(), *arr = json_array();
	int sv[2];

	pair(sv);
	CHECK_INT(bp_proto_send_json(sv[0], msg, in_ms(1000)), 0);
	CHECK_INT(bp_proto_send_json(sv[0], empty, in_ms(1000)), 0);
	CHECK_INT(bp_proto_recv_json(sv[1], &got, in_ms(1000)), 0);
	CHECK(got && json_equal(got, msg));
	/* The second message is intact: recv_json read exactly one message. */
	CHECK_INT(bp_proto_recv_json(sv[1], &got2, in_ms(1000)), 0);
	CHECK(got2 && json_is_object(got2) && json_object_size(got2) == 0);
	/* Only objects are control messages. */
	CHECK_INT(bp_proto_send_json(sv[0], arr, in_ms(1000)), -EINVAL);
	CHECK_INT(bp_proto_send_json(sv[0], NULL, in_ms(1000)), -EINVAL);
	close_pair(sv);
	json_decref(msg);
	json_decref(got);
	json_decref(got2);
	json_decref(empty);
	json_decref(arr);
}

/* The length prefix, as iperf3 writes it: big-endian, text without NUL. */
static void test_json_wire_format(void)
{
	json_t *msg = json_pack("{s:i}", "a", 1);
	unsigned char buf[11];
	int sv[2];

	pair(sv);
	CHECK_INT(bp_proto_send_json(sv[0], msg, in_ms(1000)), 0);
	CHECK_INT(bp_proto_read_all(sv[1], buf, sizeof(buf), in_ms(1000)), 0);
	CHECK(memcmp(buf, "\0\0\0\x07{\"a\":1}", 11) == 0);
	close_pair(sv);
	json_decref(msg);
}

static int recv_raw_json(const void *wire, size_t len, json_t **msg)
{
	int sv[2], rc;

	pair(sv);
	bp_proto_write_all(sv[0], wire, len, in_ms(1000));
	close(sv[0]);
	rc = bp_proto_recv_json(sv[1], msg, in_ms(1000));
	close(sv[1]);
	return rc;
}

static void test_json_refused(void)
{
	/* One byte over the limit, followed by bytes that must stay unread. */
	static const unsigned char big[] = { 0x00, 0x10, 0x00, 0x01, 'N', 'E', 'X', 'T' };
	json_t *msg = NULL;
	char rest[4];
	int sv[2];

	pair(sv);
	CHECK_INT(bp_proto_write_all(sv[0], big, sizeof(big), in_ms(1000)), 0);
	CHECK_INT(bp_proto_recv_json(sv[1], &msg, in_ms(1000)), -EMSGSIZE);
	CHECK(msg == NULL);
	CHECK_INT(bp_proto_read_all(sv[1], rest, 4, in_ms(1000)), 0);
	CHECK(memcmp(rest, "NEXT", 4) == 0);
	close_pair(sv);

	CHECK_INT(recv_raw_json("\xff\xff\xff\xff", 4, &msg), -EMSGSIZE);
	CHECK_INT(recv_raw_json("\0\0\0\0", 4, &msg), -EBADMSG);
	CHECK_INT(recv_raw_json("\0\0\0\x05[1,2]", 9, &msg), -EBADMSG);
	CHECK_INT(recv_raw_json("\0\0\0\x02" "42", 6, &msg), -EBADMSG);
	CHECK_INT(recv_raw_json("\0\0\0\x05{\"a\":", 9, &msg), -EBADMSG);
	CHECK_INT(recv_raw_json("\0\0\0\x03{}x", 7, &msg), -EBADMSG);
	/* A trailing NUL is not part of iperf3's framing. */
	CHECK_INT(recv_raw_json("\0\0\0\x03{}\0", 7, &msg), -EBADMSG);
	CHECK(msg == NULL);
	/* Truncated: the length promises 10 bytes, 5 arrive, then the peer closes. */
	CHECK_INT(recv_raw_json("\0\0\0\x0a{\"a\":", 9, &msg), -ECONNRESET);
	CHECK_INT(recv_raw_json("\0\0", 2, &msg), -ECONNRESET);
	CHECK(msg == NULL);
}

static void test_write_closed(void)
{
	int sv[2];

	pair(sv);
	close(sv[1]);
	CHECK_INT(bp_proto_send_state(sv[0], BP_TEST_START, in_ms(1000)), -ECONNRESET);
	close(sv[0]);
}

/* On the fake clock: exactly at the deadline, not a nanosecond before or after. */
static void check_timeout(int rc, uint64_t t0, const char *what)
{
	uint64_t ns = bp_now_ns() - t0;

	CHECK_INT(rc, -ETIMEDOUT);
	CHECK_INT(ns, DEADLINE_MS * BP_NS_PER_MS);
	printf("# %s: timed out after %llu ns\n", what, (unsigned long long)ns);
}

static void test_timeouts(void)
{
	static char big[4 << 20];
	json_t *msg = NULL;
	uint64_t t0;
	int sv[2], st, rc;

	/* Where the fake clock starts does not matter here (not 0: a deadline is absolute). */
	bp_clock_fake_start(1000 * BP_NS_PER_SEC);
	pair(sv);
	t0 = bp_now_ns();
	rc = bp_proto_recv_state(sv[1], &st, t0 + DEADLINE_MS * BP_NS_PER_MS);
	check_timeout(rc, t0, "read, blocking socket");

	/* Half a message, then silence: the deadline still ends the wait. */
	bp_proto_write_all(sv[0], "\0\0\0\x10{", 5, in_ms(1000));
	t0 = bp_now_ns();
	rc = bp_proto_recv_json(sv[1], &msg, t0 + DEADLINE_MS * BP_NS_PER_MS);
	check_timeout(rc, t0, "half a JSON message");

	fcntl(sv[1], F_SETFL, fcntl(sv[1], F_GETFL) | O_NONBLOCK);
	t0 = bp_now_ns();
	rc = bp_proto_recv_state(sv[1], &st, t0 + DEADLINE_MS * BP_NS_PER_MS);
	check_timeout(rc, t0, "read, non-blocking socket");

	/* Nobody reads: the socket buffer fills and the write waits until the deadline. */
	t0 = bp_now_ns();
	rc = bp_proto_write_all(sv[0], big, sizeof(big), t0 + DEADLINE_MS * BP_NS_PER_MS);
	check_timeout(rc, t0, "write, full buffer");

	/* A deadline already past still delivers what is queued. */
	close_pair(sv);
	pair(sv);
	bp_proto_send_state(sv[0], BP_TEST_END, in_ms(1000));
	CHECK_INT(bp_proto_recv_state(sv[1], &st, bp_now_ns() - 1), 0);
	CHECK_INT(st, BP_TEST_END);
	CHECK_INT(bp_proto_recv_state(sv[1], &st, bp_now_ns() - 1), -ETIMEDOUT);
	close_pair(sv);
	bp_clock_fake_stop();
}

static void on_alarm(int sig)
{
	(void)sig;
}

struct kicker {
	pthread_t target;
	int sig;
};

static void *kick(void *arg)
{
	struct kicker *k = arg;

	bp_sleep_until_ns(in_ms(20));
	pthread_kill(k->target, k->sig);
	return NULL;
}

/*
 * A signal that does not ask to stop (here SIGALRM) interrupts poll but not the exchange;
 * SIGINT after bp_signals_install ends it at once with -EINTR. Runs last: the stop
 * request cannot be taken back.
 */
static void test_signals(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	struct kicker k = { .target = pthread_self() };
	pthread_t th;
	uint64_t t0, ms;
	int sv[2], st, rc;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);	/* no SA_RESTART: poll really sees EINTR */
	pair(sv);
	k.sig = SIGALRM;
	pthread_create(&th, NULL, kick, &k);
	t0 = bp_now_ns();
	rc = bp_proto_recv_state(sv[1], &st, t0 + 2 * DEADLINE_MS * BP_NS_PER_MS);
	pthread_join(th, NULL);
	ms = (bp_now_ns() - t0) / BP_NS_PER_MS;
	CHECK_INT(rc, -ETIMEDOUT);
	CHECK(ms >= 2 * DEADLINE_MS);

	CHECK_INT(bp_signals_install(), 0);
	k.sig = SIGINT;
	pthread_create(&th, NULL, kick, &k);
	t0 = bp_now_ns();
	rc = bp_proto_recv_state(sv[1], &st, t0 + 5000 * BP_NS_PER_MS);
	pthread_join(th, NULL);
	ms = (bp_now_ns() - t0) / BP_NS_PER_MS;
	CHECK_INT(rc, -EINTR);
	CHECK(bp_stop_requested());
	CHECK(ms < LATE_MS);
	/* A stop request alone does not cancel a send (the client still says goodbye). */
	CHECK_INT(bp_proto_send_state(sv[0], BP_CLIENT_TERMINATE, in_ms(1000)), 0);
	close_pair(sv);
}

/* Sleeps past the 250 ms within which a repeated signal is the same stop request. */
static void past_repeat_window(void)
{
	bp_sleep_until_ns(in_ms(300));
}

/*
 * Stop requests are counted, a repeat within 250 ms as the same one (`timeout` forwards one
 * Ctrl-C to the child and to its group). raise() delivers before it returns, so the
 * counts are exact; the handler reads bp_now_ns, so on the fake clock the window's edge
 * is too. Runs after test_signals installed the handler.
 */
static void test_stop_count(void)
{
	unsigned n0 = bp_stop_requests();

	CHECK(n0 >= 1);
	/*
	 * An hour ahead of the real clock: the request test_signals counted on it is far
	 * outside the window, and so, after the stop, are this test's for test_stop_tolerated.
	 * On a whole ms: the handler counts in ms, so the window's last ns is one before 250 ms.
	 */
	bp_clock_fake_start((bp_now_ns() / BP_NS_PER_MS + 3600 * 1000) * BP_NS_PER_MS);
	raise(SIGINT);
	CHECK_INT(bp_stop_requests(), n0 + 1);
	raise(SIGINT);
	CHECK_INT(bp_stop_requests(), n0 + 1);  /* the same request, delivered again */
	/* 20 ms later still the same (a window of a few ms would pass the lines above) */
	bp_clock_fake_advance(20 * BP_NS_PER_MS);
	raise(SIGTERM);
	CHECK_INT(bp_stop_requests(), n0 + 1);
	CHECK_INT(bp_stop_signal(), SIGTERM);
	/* and the last ns of the window, counted from the request, not from its repeats */
	bp_clock_fake_advance(230 * BP_NS_PER_MS - 1);
	raise(SIGINT);
	CHECK_INT(bp_stop_requests(), n0 + 1);
	/* 250 ms after the request: a second press */
	bp_clock_fake_advance(1);
	raise(SIGINT);
	CHECK_INT(bp_stop_requests(), n0 + 2);
	bp_clock_fake_stop();
}

struct later_state {
	int fd, state;
};

static void *send_later(void *arg)
{
	struct later_state *l = arg;

	bp_sleep_until_ns(in_ms(60));
	bp_proto_send_state(l->fd, l->state, in_ms(1000));
	return NULL;
}

/*
 * The results exchange after a Ctrl-C: requests it was told to tolerate interrupt its poll
 * but not the exchange (the answer still arrives); one beyond them ends it with -EINTR,
 * and tolerating none again makes any request end it.
 */
static void test_stop_tolerated(void)
{
	struct kicker k = { .target = pthread_self(), .sig = SIGINT };
	struct later_state l = { .state = BP_DISPLAY_RESULTS };
	pthread_t th, th2;
	uint64_t t0, ms;
	int sv[2], st = -1, rc;

	pair(sv);
	l.fd = sv[0];
	/* One more than now: the kick at 20 ms is tolerated, whether it counts or repeats. */
	bp_proto_tolerate_stops(bp_stop_requests() + 1);
	pthread_create(&th, NULL, kick, &k);
	pthread_create(&th2, NULL, send_later, &l);
	rc = bp_proto_recv_state(sv[1], &st, in_ms(5000));
	pthread_join(th, NULL);
	pthread_join(th2, NULL);
	CHECK_INT(rc, 0);
	CHECK_INT(st, BP_DISPLAY_RESULTS);

	bp_proto_tolerate_stops(bp_stop_requests());
	past_repeat_window();
	pthread_create(&th, NULL, kick, &k);  /* counts: a request beyond those tolerated */
	t0 = bp_now_ns();
	rc = bp_proto_recv_state(sv[1], &st, t0 + 5000 * BP_NS_PER_MS);
	pthread_join(th, NULL);
	ms = (bp_now_ns() - t0) / BP_NS_PER_MS;
	CHECK_INT(rc, -EINTR);
	CHECK(ms < LATE_MS);

	/* Tolerating none: a kick ends the wait, a repeat of the last request or not. */
	bp_proto_tolerate_stops(0);
	pthread_create(&th, NULL, kick, &k);
	rc = bp_proto_recv_state(sv[1], &st, in_ms(5000));
	pthread_join(th, NULL);
	CHECK_INT(rc, -EINTR);
	close_pair(sv);
}

/* A stream of items: the expect sequence and the bytes, as a peer would send them. */
struct item {
	enum bp_proto_expect expect;
	int state;
	const char *json;
};

static const struct item stream[] = {
	{ BP_EXPECT_COOKIE, 0, NULL },
	{ BP_EXPECT_STATE, BP_PARAM_EXCHANGE, NULL },
	{ BP_EXPECT_JSON, 0, "{\"tcp\":true,\"time\":10,\"parallel\":4,\"len\":131072}" },
	{ BP_EXPECT_STATE, BP_ACCESS_DENIED, NULL },
	{ BP_EXPECT_STATE, BP_SERVER_ERROR, NULL },
	{ BP_EXPECT_JSON, 0, "{}" },
	{ BP_EXPECT_JSON, 0, NULL },	/* a large one, built at run time */
	{ BP_EXPECT_STATE, BP_IPERF_DONE, NULL },
};
#define N_ITEMS (sizeof(stream) / sizeof(stream[0]))

struct decoded {
	char cookie[BP_COOKIE_LEN];
	int state[N_ITEMS];
	json_t *json[N_ITEMS];
};

static char *big_json(void)
{
	size_t n = 100000;
	char *s = malloc(n + 16);

	strcpy(s, "{\"title\":\"");
	memset(s + 10, 'x', n);
	strcpy(s + 10 + n, "\"}");
	return s;
}

static size_t encode_stream(unsigned char *out, const char *cookie, const char *big)
{
	size_t n = 0;

	for (size_t i = 0; i < N_ITEMS; i++) {
		const char *j = stream[i].json ? stream[i].json : big;
		size_t len;

		if (stream[i].expect == BP_EXPECT_COOKIE) {
			memcpy(out + n, cookie, BP_COOKIE_LEN);
			n += BP_COOKIE_LEN;
		} else if (stream[i].expect == BP_EXPECT_STATE) {
			out[n++] = (unsigned char)(signed char)stream[i].state;
		} else {
			len = strlen(j);
			out[n++] = (unsigned char)(len >> 24);
			out[n++] = (unsigned char)(len >> 16);
			out[n++] = (unsigned char)(len >> 8);
			out[n++] = (unsigned char)len;
			memcpy(out + n, j, len);
			n += len;
		}
	}
	return n;
}

/* Decode the stream feeding at most chunk bytes per call; returns the bytes left over. */
static long decode_stream(const unsigned char *buf, size_t len, size_t chunk,
			  struct decoded *out)
{
	struct bp_proto_decoder d;
	size_t off = 0;
	long n;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < N_ITEMS; i++) {
		bp_proto_decoder_init(&d, stream[i].expect);
		while (!d.done && off < len) {
			size_t k = len - off < chunk ? len - off : chunk;

			n = bp_proto_feed(&d, buf + off, k);
			if (n < 0) {
				bp_proto_decoder_free(&d);
				return n;
			}
			off += (size_t)n;
		}
		if (!d.done)
			return -EAGAIN;
		if (stream[i].expect == BP_EXPECT_COOKIE)
			memcpy(out->cookie, d.cookie, BP_COOKIE_LEN);
		out->state[i] = d.state;
		out->json[i] = d.json;	/* take the reference; init resets */
	}
	return (long)(len - off);
}

static void free_decoded(struct decoded *d)
{
	for (size_t i = 0; i < N_ITEMS; i++)
		json_decref(d->json[i]);
}

static void test_decoder_splits(void)
{
	char cookie[BP_COOKIE_LEN];
	char *big = big_json();
	unsigned char *wire = malloc(200000);
	struct decoded whole, bytes, odd;
	char c[BP_COOKIE_LEN];
	json_t *j = NULL;
	int same = 1, sv[2], st;
	size_t n;

	bp_cookie_make(cookie);
	n = encode_stream(wire, cookie, big);
	wire[n++] = 0x42;	/* a byte of the next item: never consumed */
	CHECK_INT(decode_stream(wire, n, n, &whole), 1);
	CHECK_INT(decode_stream(wire, n, 1, &bytes), 1);
	CHECK_INT(decode_stream(wire, n, 4093, &odd), 1);
	CHECK_STR(whole.cookie, cookie);
	CHECK_STR(bytes.cookie, cookie);
	for (size_t i = 0; i < N_ITEMS; i++) {
		if (stream[i].expect == BP_EXPECT_STATE)
			same &= whole.state[i] == stream[i].state &&
				bytes.state[i] == stream[i].state &&
				odd.state[i] == stream[i].state;
		if (stream[i].expect == BP_EXPECT_JSON)
			same &= whole.json[i] && json_equal(whole.json[i], bytes.json[i]) &&
				json_equal(whole.json[i], odd.json[i]);
	}
	CHECK(same);
	CHECK_INT(json_integer_value(json_object_get(whole.json[2], "parallel")), 4);
	CHECK_INT(strlen(json_string_value(json_object_get(bytes.json[6], "title"))), 100000);
	free_decoded(&whole);
	free_decoded(&bytes);
	free_decoded(&odd);

	/* The same bytes through the blocking codec give the same messages. */
	pair(sv);
	bp_proto_write_all(sv[0], wire, 37 + 1 + 4 + strlen(stream[2].json), in_ms(1000));
	CHECK_INT(bp_proto_read_all(sv[1], c, BP_COOKIE_LEN, in_ms(1000)), 0);
	CHECK_INT(bp_proto_recv_state(sv[1], &st, in_ms(1000)), 0);
	CHECK_INT(bp_proto_recv_json(sv[1], &j, in_ms(1000)), 0);
	CHECK_STR(c, cookie);
	CHECK_INT(st, BP_PARAM_EXCHANGE);
	CHECK_INT(json_integer_value(json_object_get(j, "len")), 131072);
	json_decref(j);
	close_pair(sv);
	free(wire);
	free(big);
}

/* Feed bytes one at a time; return the first negative result, or the count fed when done. */
static long feed_bytes(enum bp_proto_expect e, const void *buf, size_t len)
{
	struct bp_proto_decoder d;
	const unsigned char *p = buf;
	long n = 0;
	size_t i;

	bp_proto_decoder_init(&d, e);
	for (i = 0; i < len && !d.done; i++) {
		n = bp_proto_feed(&d, p + i, 1);
		if (n < 0)
			break;
	}
	bp_proto_decoder_free(&d);
	return n < 0 ? n : (long)i;
}

static void test_decoder_garbage(void)
{
	struct bp_proto_decoder d;
	char cookie[BP_COOKIE_LEN];

	/* A bad character is refused on arrival, not after 37 bytes. */
	CHECK_INT(feed_bytes(BP_EXPECT_COOKIE, "abcD", 4), -EBADMSG);
	CHECK_INT(feed_bytes(BP_EXPECT_COOKIE, "GET / HTTP/1.1\r\n", 16), -EBADMSG);
	bp_cookie_make(cookie);
	cookie[36] = 'a';
	CHECK_INT(feed_bytes(BP_EXPECT_COOKIE, cookie, 37), -EBADMSG);
	cookie[36] = '\0';
	CHECK_INT(feed_bytes(BP_EXPECT_COOKIE, cookie, 37), 37);

	CHECK_INT(feed_bytes(BP_EXPECT_JSON, "\x7f\xff\xff\xff", 4), -EMSGSIZE);
	CHECK_INT(feed_bytes(BP_EXPECT_JSON, "\x00\x10\x00\x01", 4), -EMSGSIZE);
	CHECK_INT(feed_bytes(BP_EXPECT_JSON, "\0\0\0\0", 4), -EBADMSG);
	CHECK_INT(feed_bytes(BP_EXPECT_JSON, "\0\0\0\x03{}}", 7), -EBADMSG);
	CHECK_INT(feed_bytes(BP_EXPECT_JSON, "\0\0\0\x04null", 8), -EBADMSG);
	CHECK_INT(feed_bytes(BP_EXPECT_JSON, "\0\0\0\x02[]", 6), -EBADMSG);
	CHECK_INT(feed_bytes(BP_EXPECT_JSON, "\0\0\0\x06{\"\xff\":1", 10), -EBADMSG);
	CHECK_INT(feed_bytes(BP_EXPECT_JSON, "\0\0\0\x02{}", 6), 6);
	CHECK_INT(feed_bytes(BP_EXPECT_STATE, "\xfe", 1), 1);

	/* An oversized length is refused before any body byte is consumed. */
	bp_proto_decoder_init(&d, BP_EXPECT_JSON);
	CHECK_INT(bp_proto_feed(&d, "\x00\x20\x00\x00{}", 6), -EMSGSIZE);
	bp_proto_decoder_free(&d);

	/* Whole-buffer feeds stop at the end of the item. */
	bp_proto_decoder_init(&d, BP_EXPECT_JSON);
	CHECK_INT(bp_proto_feed(&d, "\0\0\0\x02{}\x09\x0a", 8), 6);
	CHECK(d.done && json_is_object(d.json));
	CHECK_INT(bp_proto_feed(&d, "\x09", 1), 0);	/* done: the caller resets first */
	bp_proto_decoder_free(&d);
	CHECK(d.json == NULL && !d.done);
	bp_proto_decoder_init(&d, BP_EXPECT_STATE);
	CHECK_INT(bp_proto_feed(&d, "\x0d\x0e", 2), 1);
	CHECK_INT(d.state, BP_EXCHANGE_RESULTS);
	bp_proto_decoder_free(&d);

	/* Dropped half-way through a body: free releases it (ASan would see a leak). */
	bp_proto_decoder_init(&d, BP_EXPECT_JSON);
	CHECK_INT(bp_proto_feed(&d, "\0\0\x10\0{\"a\":", 9), 9);
	CHECK(!d.done);
	bp_proto_decoder_free(&d);
	CHECK_INT(bp_proto_feed(&d, "\0", 0), 0);
}

int main(void)
{
	test_cookie();
	test_cookie_wire();
	test_state_names();
	test_states();
	test_json_round_trip();
	test_json_wire_format();
	test_json_refused();
	test_write_closed();
	test_timeouts();
	test_decoder_splits();
	test_decoder_garbage();
	test_signals();
	test_stop_count();
	test_stop_tolerated();
	return tap_done();
}
