#include "proto/control.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>

#include "core/be32.h"
#include "core/clock.h"
#include "core/signals.h"

/*
 * iperf3 >= 3.2 (make_cookie in src/iperf_util.c) draws its cookie from this base32
 * alphabet. 32 symbols divide 256, so masking a random byte keeps every symbol equally
 * likely. Older iperf3 releases sent hostname/time text instead; those are refused.
 */
static const char cookie_alphabet[] = "abcdefghijklmnopqrstuvwxyz234567";
#define COOKIE_CHARS (BP_COOKIE_LEN - 1)

const char *bp_proto_state_name(int state)
{
	switch (state) {
	case BP_TEST_START:		return "TEST_START";
	case BP_TEST_RUNNING:		return "TEST_RUNNING";
	case BP_TEST_END:		return "TEST_END";
	case BP_PARAM_EXCHANGE:		return "PARAM_EXCHANGE";
	case BP_CREATE_STREAMS:		return "CREATE_STREAMS";
	case BP_SERVER_TERMINATE:	return "SERVER_TERMINATE";
	case BP_CLIENT_TERMINATE:	return "CLIENT_TERMINATE";
	case BP_EXCHANGE_RESULTS:	return "EXCHANGE_RESULTS";
	case BP_DISPLAY_RESULTS:	return "DISPLAY_RESULTS";
	case BP_IPERF_START:		return "IPERF_START";
	case BP_IPERF_DONE:		return "IPERF_DONE";
	case BP_ACCESS_DENIED:		return "ACCESS_DENIED";
	case BP_SERVER_ERROR:		return "SERVER_ERROR";
	case BP_AUTH_CHALLENGE:		return "AUTH_CHALLENGE";
	case BP_AUTH_OK:		return "AUTH_OK";
	}
	return "UNKNOWN";
}

int bp_cookie_make(char cookie[BP_COOKIE_LEN])
{
	unsigned char rnd[COOKIE_CHARS];
	size_t got = 0;
	ssize_t n;

	while (got < sizeof(rnd)) {
		n = getrandom(rnd + got, sizeof(rnd) - got, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		got += (size_t)n;
	}
	for (size_t i = 0; i < COOKIE_CHARS; i++)
		cookie[i] = cookie_alphabet[rnd[i] & 31];
	cookie[COOKIE_CHARS] = '\0';
	return 0;
}

static int is_cookie_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '2' && c <= '7');
}

int bp_cookie_valid(const char *buf)
{
	for (size_t i = 0; i < COOKIE_CHARS; i++)
		if (!is_cookie_char((unsigned char)buf[i]))
			return 0;
	return buf[COOKIE_CHARS] == '\0';
}

/* Per thread: one thread's goodbye must not change what stops another thread's set-up. */
static _Thread_local unsigned tolerated_stops;

void bp_proto_tolerate_stops(unsigned n)
{
	tolerated_stops = n;
}

/*
 * A signal that interrupts a syscall only ends the exchange when it asked boardperf to
 * stop (and more often than tolerated); any other signal (SIGCHLD, a profiler's timer)
 * must not lose the message.
 */
static int interrupted(void)
{
	return bp_stop_requests() > tolerated_stops ? -EINTR : 0;
}

/*
 * Wait until fd is ready for events or the deadline passes. Readiness, hang-up and
 * socket errors all return 0: the next recv/send reports what really happened.
 */
static int wait_ready(int fd, short events, uint64_t deadline_ns)
{
	struct pollfd p = { .fd = fd, .events = events };
	uint64_t now = bp_now_ns(), left_ms;
	int n;

	if (now >= deadline_ns)
		return -ETIMEDOUT;
	/* Round up: a 0 ms poll before the deadline would spin instead of sleeping. */
	left_ms = (deadline_ns - now + BP_NS_PER_MS - 1) / BP_NS_PER_MS;
	/* A fake clock (tests, core/clock.h) waits for nothing and moves on to the deadline. */
	n = poll(&p, 1, bp_clock_wait_ms(left_ms > INT_MAX ? INT_MAX : (int)left_ms));
	if (n < 0)
		return errno == EINTR ? interrupted() : -errno;
	if (n == 0)
		bp_clock_timed_out(deadline_ns);
	if (n > 0 && (p.revents & POLLNVAL))
		return -EBADF;
	return 0;
}

/*
 * Both helpers try the I/O first with MSG_DONTWAIT and poll only when it would block:
 * a blocking socket then never blocks past the deadline, and data already queued is
 * delivered even when the deadline has just passed.
 */
int bp_proto_write_all(int fd, const void *buf, size_t len, uint64_t deadline_ns)
{
	const char *p = buf;
	ssize_t n;
	int rc;

	while (len > 0) {
		n = send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n >= 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (errno == EINTR) {
			rc = interrupted();
		} else if (errno == EAGAIN || errno == EWOULDBLOCK) {
			rc = wait_ready(fd, POLLOUT, deadline_ns);
		} else {
			/* With MSG_NOSIGNAL a closed peer shows up as EPIPE: same meaning. */
			return errno == EPIPE ? -ECONNRESET : -errno;
		}
		if (rc)
			return rc;
	}
	return 0;
}

int bp_proto_read_all(int fd, void *buf, size_t len, uint64_t deadline_ns)
{
	char *p = buf;
	ssize_t n;
	int rc;

	while (len > 0) {
		n = recv(fd, p, len, MSG_DONTWAIT);
		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n == 0)
			return -ECONNRESET;
		if (errno == EINTR)
			rc = interrupted();
		else if (errno == EAGAIN || errno == EWOULDBLOCK)
			rc = wait_ready(fd, POLLIN, deadline_ns);
		else
			return -errno;
		if (rc)
			return rc;
	}
	return 0;
}

int bp_proto_send_state(int fd, int state, uint64_t deadline_ns)
{
	signed char b = (signed char)state;

	if (state < SCHAR_MIN || state > SCHAR_MAX)
		return -EINVAL;
	return bp_proto_write_all(fd, &b, 1, deadline_ns);
}

int bp_proto_recv_state(int fd, int *state, uint64_t deadline_ns)
{
	signed char b;
	int rc = bp_proto_read_all(fd, &b, 1, deadline_ns);

	if (rc == 0)
		*state = b;
	return rc;
}

/*
 * Length and text leave in one send: two small writes would meet Nagle's algorithm and
 * the peer's delayed ACK, costing up to 40 ms per control message.
 */
int bp_proto_send_json(int fd, const json_t *msg, uint64_t deadline_ns)
{
	const size_t flags = JSON_COMPACT;
	unsigned char *buf;
	size_t len;
	int rc;

	if (!json_is_object(msg))
		return -EINVAL;
	len = json_dumpb(msg, NULL, 0, flags);
	if (len == 0)
		return -EINVAL;
	/* Never send what a peer of ours would refuse to read. */
	if (len > BP_PROTO_MAX_JSON)
		return -EMSGSIZE;
	buf = malloc(4 + len);
	if (!buf)
		return -ENOMEM;
	if (json_dumpb(msg, (char *)buf + 4, len, flags) != len) {
		rc = -EINVAL;
		goto out;
	}
	bp_put_be32(buf, (uint32_t)len);
	rc = bp_proto_write_all(fd, buf, 4 + len, deadline_ns);
out:
	free(buf);
	return rc;
}

int bp_proto_parse_json(const char *text, size_t len, json_t **msg)
{
	json_error_t err;
	json_t *j = json_loadb(text, len, 0, &err);

	/*
	 * Stock iperf3 (cJSON) prints -1 as an unsigned 64-bit number in its results
	 * ("sender_has_retransmits": 18446744073709551615), which overflows jansson's integers:
	 * such a message is read again with every number as a double.
	 */
	if (!j && json_error_code(&err) == json_error_numeric_overflow)
		j = json_loadb(text, len, JSON_DECODE_INT_AS_REAL, &err);
	if (!j)
		return -EBADMSG;
	if (!json_is_object(j)) {
		json_decref(j);
		return -EBADMSG;
	}
	*msg = j;
	return 0;
}

static int check_json_len(uint32_t len)
{
	if (len == 0)
		return -EBADMSG;
	if (len > BP_PROTO_MAX_JSON)
		return -EMSGSIZE;
	return 0;
}

int bp_proto_recv_json(int fd, json_t **msg, uint64_t deadline_ns)
{
	unsigned char hdr[4];
	uint32_t len;
	char *body;
	int rc;

	rc = bp_proto_read_all(fd, hdr, sizeof(hdr), deadline_ns);
	if (rc)
		return rc;
	len = bp_get_be32(hdr);
	rc = check_json_len(len);
	if (rc)
		return rc;
	body = malloc(len);
	if (!body)
		return -ENOMEM;
	rc = bp_proto_read_all(fd, body, len, deadline_ns);
	if (rc == 0)
		rc = bp_proto_parse_json(body, len, msg);
	free(body);
	return rc;
}

void bp_proto_decoder_init(struct bp_proto_decoder *d, enum bp_proto_expect expect)
{
	memset(d, 0, sizeof(*d));
	d->expect = expect;
}

void bp_proto_decoder_limit(struct bp_proto_decoder *d, size_t max,
			    struct bp_peer_budget *budget)
{
	d->max = max;
	d->budget = budget;
}

/* The body's buffer is gone: what it held of the budget goes back. */
static void body_free(struct bp_proto_decoder *d)
{
	free(d->body);
	d->body = NULL;
	if (d->budget)
		bp_peer_budget_give(d->budget, d->charged);
	d->charged = 0;
}

void bp_proto_decoder_free(struct bp_proto_decoder *d)
{
	size_t max = d->max;
	struct bp_peer_budget *budget = d->budget;

	json_decref(d->json);
	body_free(d);
	bp_proto_decoder_init(d, d->expect);
	bp_proto_decoder_limit(d, max, budget);
}

/* Cookie bytes are checked as they arrive, so garbage is refused at its first byte. */
static long feed_cookie(struct bp_proto_decoder *d, const unsigned char *p, size_t len)
{
	size_t used = 0;

	while (used < len && d->have < BP_COOKIE_LEN) {
		unsigned char c = p[used];

		if (d->have < COOKIE_CHARS ? !is_cookie_char(c) : c != '\0')
			return -EBADMSG;
		d->cookie[d->have++] = (char)c;
		used++;
	}
	if (d->have == BP_COOKIE_LEN)
		d->done = 1;
	return (long)used;
}

static long feed_state(struct bp_proto_decoder *d, const unsigned char *p, size_t len)
{
	if (len == 0)
		return 0;
	d->state = (signed char)p[0];
	d->done = 1;
	return 1;
}

/*
 * The body buffer grows with what has arrived (4 KiB, doubling, never above the announced
 * length) rather than with what the peer claims: a server holding many half-sent
 * messages then holds only the bytes it really received. For a given number of bytes
 * received the buffer size is a pure function, so the decoder needs no capacity field.
 */
static size_t body_cap(size_t got, size_t need)
{
	size_t c = 4096;

	while (c < got && c < need)
		c <<= 1;
	return c < need ? c : need;
}

static int feed_json_len(struct bp_proto_decoder *d, const unsigned char *p, size_t len,
			 size_t *used)
{
	size_t k = 4 - d->have;
	int rc;

	if (k > len)
		k = len;
	memcpy(d->lenbuf + d->have, p, k);
	d->have += k;
	*used = k;
	if (d->have < 4)
		return 0;
	rc = check_json_len(bp_get_be32(d->lenbuf));
	if (rc)
		return rc;
	/* The claim alone is refused: nothing of a message over this step's cap is kept. */
	if (d->max && bp_get_be32(d->lenbuf) > d->max)
		return -EMSGSIZE;
	d->need = bp_get_be32(d->lenbuf);
	return 0;
}

static int feed_json_body(struct bp_proto_decoder *d, const unsigned char *p, size_t len,
			  size_t *used)
{
	size_t got = d->have - 4, k = d->need - got;
	char *nb;
	int rc;

	if (k > len)
		k = len;
	*used = k;
	if (k == 0)
		return 0;
	if (!d->body || got + k > body_cap(got, d->need)) {
		size_t cap = body_cap(got + k, d->need), more = cap - d->charged;

		/* Before anything changes, so that the caller may make room and feed again. */
		if (d->budget && !bp_peer_budget_take(d->budget, more)) {
			*used = 0;
			return -ENOBUFS;
		}
		nb = realloc(d->body, cap);
		if (!nb) {
			if (d->budget)
				bp_peer_budget_give(d->budget, more);
			return -ENOMEM;
		}
		d->body = nb;
		d->charged = cap;
	}
	memcpy(d->body + got, p, k);
	d->have += k;
	if (got + k < d->need)
		return 0;
	rc = bp_proto_parse_json(d->body, d->need, &d->json);
	body_free(d);
	if (rc == 0)
		d->done = 1;
	return rc;
}

static long feed_json(struct bp_proto_decoder *d, const unsigned char *p, size_t len)
{
	size_t used = 0, k = 0;
	int rc;

	if (d->have < 4) {
		rc = feed_json_len(d, p, len, &k);
		if (rc)
			return rc;
		used = k;
		if (d->have < 4)
			return (long)used;
	}
	rc = feed_json_body(d, p + used, len - used, &k);
	/* The length bytes are consumed either way; the next feed meets the budget again. */
	if (rc == -ENOBUFS && used)
		return (long)used;
	if (rc)
		return rc;
	return (long)(used + k);
}

/*
 * Consumes at most the rest of the current item, so bytes of the next message stay with
 * the caller. After a negative return the decoder must be freed (or reinitialised after
 * bp_proto_decoder_free) before it is used again; feeding it further is safe but useless.
 */
long bp_proto_feed(struct bp_proto_decoder *d, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	if (d->done || len == 0)
		return 0;
	switch (d->expect) {
	case BP_EXPECT_COOKIE:
		return feed_cookie(d, p, len);
	case BP_EXPECT_STATE:
		return feed_state(d, p, len);
	case BP_EXPECT_JSON:
		return feed_json(d, p, len);
	}
	return -EINVAL;
}
