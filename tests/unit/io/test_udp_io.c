/*
 * Batched UDP I/O over 127.0.0.1: every send and receive path carries 10,000 datagrams
 * intact and in order, a receive-buffer overflow is counted by the kernel's drop counter,
 * and (as root, in a private network namespace) a full qdisc shows up as the sender's own
 * ENOBUFS rather than as silent loss; a stopping receiver's drain (bp_udp_drain) on the
 * fake clock. Prints datagrams/s per path as TAP comments.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/clock.h"
#include "io/udp_header.h"
#include "io/udp_io.h"
#include "tap.h"

#define BATCH 64
#define TOTAL 10000
#define WAIT_MS 2000
/* Quiet time after which a receiver that expects losses has everything that will come. */
#define SETTLE_MS 200

static const char *const send_names[] = { "gso", "sendmmsg", "send" };
static const char *const recv_names[] = { "gro+recvmmsg", "recvmmsg", "recv" };

static void skip(const char *why)
{
	printf("ok %d - # SKIP %s\n", ++tap_n, why);
}

/* rx bound to 127.0.0.1:0, tx connected to it and rx connected back, so only tx reaches rx. */
static int make_pair(int *tx, int *rx)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	*rx = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	*tx = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (*rx < 0 || *tx < 0 || bind(*rx, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    getsockname(*rx, (struct sockaddr *)&a, &len) < 0 ||
	    connect(*tx, (struct sockaddr *)&a, sizeof(a)) < 0)
		return -1;
	len = sizeof(a);
	if (getsockname(*tx, (struct sockaddr *)&a, &len) < 0 ||
	    connect(*rx, (struct sockaddr *)&a, sizeof(a)) < 0)
		return -1;
	return 0;
}

/* Sender side: sequence numbers from 1 as iperf3 has them, filler derived from them. */
struct tx_ctx {
	uint64_t next_seq;
	bool pattern;
};

static void fill(void *arg, uint8_t *p, size_t len, int index)
{
	struct tx_ctx *t = arg;
	struct bp_udp_header h = { 0, 0, t->next_seq + (uint64_t)index };

	bp_udp_header_set_time(&h, bp_now_ns());
	bp_udp_header_encode(p, len, &h, false);
	if (t->pattern)
		for (size_t i = BP_UDP_HDR_LEN_SEQ32; i < len; i++)
			p[i] = (uint8_t)(h.seq + i);
}

struct rx_ctx {
	size_t len;
	uint64_t expect;     /* next sequence number */
	uint64_t got;
	uint64_t bad_len, bad_seq, bad_payload, bad_time;
	bool check;
};

static void handle(void *arg, const uint8_t *p, size_t len, uint64_t arrival_ns)
{
	struct rx_ctx *c = arg;
	struct bp_udp_header h;

	c->got++;
	if (!c->check)
		return;
	if (len != c->len || bp_udp_header_decode(p, len, false, &h) < 0) {
		c->bad_len++;
		return;
	}
	if (h.seq != c->expect)
		c->bad_seq++;
	c->expect = h.seq + 1;
	/* Sent in the past by the same monotonic clock, to microsecond precision. */
	if (bp_udp_header_time_ns(&h) > arrival_ns)
		c->bad_time++;
	for (size_t i = BP_UDP_HDR_LEN_SEQ32; i < len; i++)
		if (p[i] != (uint8_t)(h.seq + i)) {
			c->bad_payload++;
			break;
		}
}

/* Read until want datagrams arrived or nothing came for wait_ms. */
static int drain(struct bp_udp_receiver *r, struct rx_ctx *c, uint64_t want, int wait_ms)
{
	struct pollfd pfd = { .fd = r->fd, .events = POLLIN };

	while (c->got < want) {
		int n = bp_udp_recv_batch(r, handle, c);

		if (n < 0)
			return n;
		if (n == 0 && poll(&pfd, 1, wait_ms) <= 0)
			break;
	}
	return 0;
}

static bool setup_modes(struct bp_udp_sender *s, struct bp_udp_receiver *r, int sm, int rm)
{
	char why[128];

	if (sm == BP_UDP_SEND_GSO && s->mode != BP_UDP_SEND_GSO) {
		snprintf(why, sizeof(why), "send path gso: this kernel has no UDP_SEGMENT");
		skip(why);
		return false;
	}
	if (rm == BP_UDP_RECV_GRO && r->mode != BP_UDP_RECV_GRO) {
		snprintf(why, sizeof(why), "receive path gro: this kernel has no UDP_GRO");
		skip(why);
		return false;
	}
	return bp_udp_sender_limit_mode(s, (enum bp_udp_send_mode)sm) == 0 &&
	       bp_udp_receiver_limit_mode(r, (enum bp_udp_recv_mode)rm) == 0;
}

static void check_transfer(int sm, int rm, size_t len)
{
	struct bp_udp_sender s;
	struct bp_udp_receiver r;
	struct tx_ctx t = { 1, true };
	struct rx_ctx c = { .len = len, .expect = 1, .check = true };
	char err[160];
	int tx, rx, iters = 0;

	printf("# transfer: send %s, receive %s, %zu bytes\n", send_names[sm], recv_names[rm], len);
	CHECK(make_pair(&tx, &rx) == 0);
	CHECK(bp_udp_set_buffers(rx, 4 << 20, err, sizeof(err)) > 0);
	CHECK(bp_udp_sender_init(&s, tx, len, BATCH, sm == BP_UDP_SEND_GSO) == 0);
	CHECK(bp_udp_receiver_init(&r, rx, len, BATCH, rm == BP_UDP_RECV_GRO) == 0);
	if (setup_modes(&s, &r, sm, rm)) {
		while (t.next_seq <= TOTAL && iters++ < 4 * TOTAL) {
			int n = (int)(TOTAL + 1 - t.next_seq < BATCH ? TOTAL + 1 - t.next_seq : BATCH);
			int k = bp_udp_send_batch(&s, n, fill, &t);

			if (k < 0)
				break;
			t.next_seq += (uint64_t)k;
			drain(&r, &c, t.next_seq - 1, WAIT_MS);
		}
		CHECK_INT(s.st.datagrams, TOTAL);
		CHECK_INT(c.got, TOTAL);
		CHECK_INT(c.bad_len + c.bad_seq + c.bad_payload + c.bad_time, 0);
		CHECK_INT(bp_udp_receiver_kernel_drops(&r), 0);
		if (!bp_udp_receiver_drops_known(&r))
			printf("#   no kernel drop counter here: zero drops means unknown\n");
		/* No path fell back behind our back. */
		CHECK_STR(bp_udp_sender_mode(&s), send_names[sm]);
		CHECK_STR(bp_udp_receiver_mode(&r), recv_names[rm]);
		printf("#   %llu send calls, %llu receive calls, %llu coalesced buffers\n",
		       (unsigned long long)s.st.calls, (unsigned long long)r.st.calls,
		       (unsigned long long)r.st.coalesced);
		if (sm == BP_UDP_SEND_GSO && rm == BP_UDP_RECV_GRO)
			CHECK(r.st.coalesced > 0); /* loopback hands GSO sends to GRO sockets whole */
	}
	bp_udp_sender_free(&s);
	bp_udp_receiver_free(&r);
	close(tx);
	close(rx);
}

/*
 * Fill a small receive buffer without reading: the kernel drops what does not fit and
 * counts it. Afterwards received + dropped must be exactly what was sent, read both
 * through SO_MEMINFO and through the SO_RXQ_OVFL value a later datagram carries.
 */
static void check_overflow(int sm, int rm)
{
	struct bp_udp_sender s;
	struct bp_udp_receiver r;
	struct tx_ctx t = { 1, false };
	struct rx_ctx c = { .len = 64 };
	char err[160];
	int tx, rx, sent = 0;
	uint64_t drops;

	printf("# overflow: send %s, receive %s\n", send_names[sm], recv_names[rm]);
	CHECK(make_pair(&tx, &rx) == 0);
	CHECK(bp_udp_set_buffers(rx, 4096, err, sizeof(err)) > 0);
	CHECK(bp_udp_sender_init(&s, tx, 64, BATCH, sm == BP_UDP_SEND_GSO) == 0);
	CHECK(bp_udp_receiver_init(&r, rx, 64, BATCH, rm == BP_UDP_RECV_GRO) == 0);
	if (!setup_modes(&s, &r, sm, rm))
		goto out;
	if (!bp_udp_receiver_drops_known(&r)) {
		skip("overflow: no kernel drop counter here (qemu-user has neither "
		     "SO_RXQ_OVFL nor SO_MEMINFO)");
		goto out;
	}
	for (int i = 0; i < 2000 / BATCH; i++) {
		int k = bp_udp_send_batch(&s, BATCH, fill, &t);

		sent += k > 0 ? k : 0;
		t.next_seq += (uint64_t)(k > 0 ? k : 0);
	}
	drain(&r, &c, (uint64_t)sent, SETTLE_MS);
	drops = bp_udp_receiver_kernel_drops(&r);
	printf("#   sent %d, received %llu, kernel drops %llu (%s)\n", sent,
	       (unsigned long long)c.got, (unsigned long long)drops,
	       r.meminfo_ok ? "SO_MEMINFO" : "SO_RXQ_OVFL");
	CHECK_INT(sent, 2000 / BATCH * BATCH);
	CHECK(drops > 0);
	if (sm == BP_UDP_SEND_GSO && rm == BP_UDP_RECV_GRO)
		CHECK(c.got + drops < (uint64_t)sent); /* a dropped coalesced buffer counts once */
	else
		CHECK_INT(c.got + drops, sent);
	/* One more datagram brings the drop count as a control message. */
	if (!r.ovfl_ok)
		goto out;
	r.meminfo_ok = false;
	r.drops = 0;
	r.drops_raw = 0;
	CHECK_INT(bp_udp_send_batch(&s, 1, fill, &t), 1);
	drain(&r, &c, c.got + 1, WAIT_MS);
	CHECK_INT(r.drops, drops);
out:
	bp_udp_sender_free(&s);
	bp_udp_receiver_free(&r);
	close(tx);
	close(rx);
}

/* A closed port answers with ICMP; the next batch reports it instead of counting datagrams. */
static void check_refused(void)
{
	struct bp_udp_sender s;
	struct tx_ctx t = { 1, false };
	int tx, rx, rc = 0;

	CHECK(make_pair(&tx, &rx) == 0);
	close(rx);
	CHECK(bp_udp_sender_init(&s, tx, 64, BATCH, false) == 0);
	for (int i = 0; i < 3 && rc >= 0; i++)
		rc = bp_udp_send_batch(&s, BATCH, fill, &t);
	CHECK_INT(rc, -ECONNREFUSED);
	CHECK_INT(s.last_errno, ECONNREFUSED);
	CHECK(s.st.datagrams % BATCH != 0 || s.st.datagrams > 0);
	CHECK_INT(s.st.eagain + s.st.enobufs, 0);
	CHECK_INT(bp_udp_send_batch(&s, 0, fill, &t), -EINVAL);
	CHECK_INT(bp_udp_send_batch(&s, BATCH + 1, fill, &t), -EINVAL);
	bp_udp_sender_free(&s);
	close(tx);
}

static void check_args(void)
{
	struct bp_udp_sender s;
	struct bp_udp_receiver r;
	char err[160];

	CHECK_INT(bp_udp_sender_init(&s, -1, 0, 1, false), -EINVAL);
	CHECK_INT(bp_udp_sender_init(&s, -1, 65508, 1, false), -EINVAL);
	CHECK_INT(bp_udp_sender_init(&s, -1, 64, BP_UDP_MAX_BATCH + 1, false), -EINVAL);
	CHECK_INT(bp_udp_receiver_init(&r, -1, 64, 0, false), -EINVAL);
	CHECK_INT(bp_udp_set_buffers(-1, 0, err, sizeof(err)), -EINVAL);
	CHECK_INT(bp_udp_set_buffers(-1, 4096, err, sizeof(err)), -EBADF);
	CHECK(strstr(err, "SO_SNDBUF 4096") != NULL);
}

/* Past net.core.rmem_max only as root; either way the size in effect is what comes back. */
static void check_buffers(void)
{
	char err[200];
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int got;

	CHECK(fd >= 0);
	got = bp_udp_set_buffers(fd, 65536, err, sizeof(err));
	CHECK_INT(got, 2 * 65536);
	CHECK_STR(err, "");
	/* 64 MiB is over Debian's and most boards' caps (212992 by default). */
	got = bp_udp_set_buffers(fd, 64 << 20, err, sizeof(err));
	printf("#   64 MiB asked: %d in effect%s%s\n", got, err[0] ? ", " : "", err);
	if (geteuid() == 0) {
		CHECK_INT(got, 2 * (64 << 20));
		CHECK_STR(err, "");
	} else {
		CHECK(got > 0 && got < 2 * (64 << 20));
		CHECK(strstr(err, "capped") != NULL);
	}
	close(fd);
}

/*
 * The tester's own drops: in a private network namespace, lo gets a tbf qdisc too small
 * for a burst. Without IP_RECVERR the kernel would call every refused datagram sent; with
 * it each one comes back as ENOBUFS, so the qdisc's drop counter equals the sender's
 * count of refusals and everything the sender counts as sent arrives.
 */
struct nobufs_result {
	char skip[96];
	uint64_t attempted, datagrams, unsent, enobufs, short_calls, received, qdisc_drops;
};

static uint64_t qdisc_drops(void)
{
	char line[256];
	uint64_t drops = UINT64_MAX;
	FILE *f = popen("tc -s qdisc show dev lo", "r");

	while (f && fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "(dropped ");

		if (p)
			drops = strtoull(p + 9, NULL, 10);
	}
	if (f)
		pclose(f);
	return drops;
}

static void nobufs_child(int sm, struct nobufs_result *res)
{
	struct bp_udp_sender s;
	struct bp_udp_receiver r;
	struct tx_ctx t = { 1, false };
	struct rx_ctx c = { .len = 64 };
	char err[160];
	int tx, rx;

	if (unshare(CLONE_NEWNET) < 0) {
		snprintf(res->skip, sizeof(res->skip), "unshare(CLONE_NEWNET): %s", strerror(errno));
		return;
	}
	/* About 40 datagrams pass at once, 70 more wait; a 64-datagram burst overflows it. */
	if (system("ip link set lo up && tc qdisc add dev lo root tbf rate 10mbit "
		   "burst 4kb limit 8kb >/dev/null 2>&1") != 0) {
		snprintf(res->skip, sizeof(res->skip), "no ip/tc or no tbf qdisc here");
		return;
	}
	if (make_pair(&tx, &rx) < 0 || bp_udp_set_buffers(rx, 4 << 20, err, sizeof(err)) < 0 ||
	    bp_udp_sender_init(&s, tx, 64, BATCH, sm == BP_UDP_SEND_GSO) < 0 ||
	    bp_udp_receiver_init(&r, rx, 64, BATCH, false) < 0) {
		snprintf(res->skip, sizeof(res->skip), "socket setup failed: %s", strerror(errno));
		return;
	}
	if (sm == BP_UDP_SEND_GSO && s.mode != BP_UDP_SEND_GSO) {
		snprintf(res->skip, sizeof(res->skip), "this kernel has no UDP_SEGMENT");
		return;
	}
	bp_udp_sender_limit_mode(&s, (enum bp_udp_send_mode)sm);
	for (int i = 0; i < 10; i++) {
		int k = bp_udp_send_batch(&s, BATCH, fill, &t);

		res->attempted += BATCH;
		t.next_seq += (uint64_t)(k > 0 ? k : 0);
	}
	drain(&r, &c, s.st.datagrams, SETTLE_MS);
	res->datagrams = s.st.datagrams;
	res->unsent = s.st.unsent;
	res->enobufs = s.st.enobufs;
	res->short_calls = s.st.short_calls;
	res->received = c.got;
	res->qdisc_drops = qdisc_drops();
}

static void check_nobufs(int sm)
{
	struct nobufs_result res = { .skip = "" };
	int pfd[2];
	pid_t pid;

	printf("# tester drops: send %s into a full qdisc\n", send_names[sm]);
	if (geteuid() != 0) {
		skip("tester drops: a private network namespace needs root");
		return;
	}
	CHECK(pipe(pfd) == 0);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(pfd[0]);
		nobufs_child(sm, &res);
		_exit(write(pfd[1], &res, sizeof(res)) == sizeof(res) ? 0 : 1);
	}
	close(pfd[1]);
	CHECK(read(pfd[0], &res, sizeof(res)) == sizeof(res));
	close(pfd[0]);
	waitpid(pid, NULL, 0);
	if (res.skip[0]) {
		skip(res.skip);
		return;
	}
	printf("#   attempted %llu, sent %llu, unsent %llu, ENOBUFS %llu, short sendmmsg %llu, "
	       "received %llu, qdisc drops %llu\n", (unsigned long long)res.attempted,
	       (unsigned long long)res.datagrams, (unsigned long long)res.unsent,
	       (unsigned long long)res.enobufs, (unsigned long long)res.short_calls,
	       (unsigned long long)res.received, (unsigned long long)res.qdisc_drops);
	CHECK_INT(res.datagrams + res.unsent, res.attempted);
	if (sm == BP_UDP_SEND_GSO) {
		/*
		 * tbf cuts super-datagrams and drops pieces silently (see bp_udp_send_batch):
		 * the send fails with ENOBUFS only when every piece was refused, which takes a
		 * queue with no room at all at that instant. A slower sender (qemu-user, a
		 * loaded core) lets a piece in each time; the overflow still shows in the qdisc.
		 */
		CHECK(res.qdisc_drops > 0 && res.qdisc_drops != UINT64_MAX);
		CHECK(res.received <= res.datagrams);
		return;
	}
	CHECK(res.enobufs > 0);
	/* Nothing counted as sent is lost; every qdisc drop was a refusal the sender saw. */
	CHECK_INT(res.received, res.datagrams);
	CHECK(res.qdisc_drops >= res.enobufs);
	CHECK(res.qdisc_drops <= res.enobufs + res.short_calls);
}

/*
 * Datagrams/s with 64-byte payloads, sender and receiver on this one thread: the figure
 * is the CPU cost of both ends per datagram, which is what limits a small board.
 */
static void measure(int sm, int rm)
{
	struct bp_udp_sender s;
	struct bp_udp_receiver r;
	struct tx_ctx t = { 1, false };
	struct rx_ctx c = { .len = 64 };
	char err[160];
	uint64_t start, end, send_ns = 0, recv_ns = 0;
	int tx, rx;

	if (make_pair(&tx, &rx) < 0 || bp_udp_set_buffers(rx, 4 << 20, err, sizeof(err)) < 0 ||
	    bp_udp_sender_init(&s, tx, 64, BATCH, sm == BP_UDP_SEND_GSO) < 0 ||
	    bp_udp_receiver_init(&r, rx, 64, BATCH, rm == BP_UDP_RECV_GRO) < 0)
		return;
	if (setup_modes(&s, &r, sm, rm)) {
		start = end = bp_now_ns();
		while (end - start < 300 * BP_NS_PER_MS) {
			uint64_t a = end, b;

			t.next_seq += (uint64_t)bp_udp_send_batch(&s, BATCH, fill, &t);
			b = bp_now_ns();
			while (bp_udp_recv_batch(&r, handle, &c) > 0)
				;
			end = bp_now_ns();
			send_ns += b - a;
			recv_ns += end - b;
		}
		printf("# pps 64 B, send %s, receive %s: %.0f datagrams/s on one thread "
		       "(send %.0f ns + receive %.0f ns per datagram), lost %llu\n",
		       send_names[sm], recv_names[rm], c.got * 1e9 / (double)(end - start),
		       (double)send_ns / (double)c.got, (double)recv_ns / (double)c.got,
		       (unsigned long long)(s.st.datagrams - c.got));
		CHECK(c.got > 0);
	}
	bp_udp_sender_free(&s);
	bp_udp_receiver_free(&r);
	close(tx);
	close(rx);
}

/* The drain's handler: counts, and as a peer that goes on sending, sends one more 1 ms on. */
struct drain_ctx {
	int tx;
	bool refill;
	uint64_t got;
};

static void drained(void *arg, const uint8_t *payload, size_t len, uint64_t arrival_ns)
{
	struct drain_ctx *d = arg;
	uint8_t buf[64] = { 0 };

	(void)payload, (void)len, (void)arrival_ns;
	d->got++;
	if (d->refill) {
		bp_clock_fake_advance(BP_NS_PER_MS);
		if (send(d->tx, buf, sizeof(buf), 0) < 0)
			d->refill = false;
	}
}

/*
 * On the fake clock: what is queued is read and an empty socket ends the drain 2 ms (its
 * idle time) after the last read, not at the 20 ms bound; a peer that goes on sending, one
 * datagram a millisecond, is read until the bound and no further.
 */
static void check_drain(void)
{
	struct bp_udp_receiver r;
	struct drain_ctx d = { 0 };
	uint8_t buf[64] = { 0 };
	struct pollfd pfd;
	uint64_t t0, got, took;
	int tx, rx, sent = 0;

	if (make_pair(&tx, &rx) < 0 || bp_udp_receiver_init(&r, rx, 2048, 8, false)) {
		skip("drain: no UDP socket pair on 127.0.0.1");
		return;
	}
	for (int i = 0; i < 20; i++)
		sent += send(tx, buf, sizeof(buf), 0) == (ssize_t)sizeof(buf);
	pfd = (struct pollfd){ .fd = rx, .events = POLLIN };
	CHECK(sent == 20 && poll(&pfd, 1, WAIT_MS) == 1);
	bp_clock_fake_start(BP_NS_PER_SEC);
	t0 = bp_now_ns();
	got = bp_udp_drain(&r, drained, &d, t0 + 20 * BP_NS_PER_MS, 2 * BP_NS_PER_MS);
	took = bp_now_ns() - t0;
	CHECK_INT(got, 20);
	CHECK_INT(d.got, 20);
	CHECK(took >= 2 * BP_NS_PER_MS && took < 3 * BP_NS_PER_MS);
	d = (struct drain_ctx){ .tx = tx, .refill = true };
	CHECK(send(tx, buf, sizeof(buf), 0) == (ssize_t)sizeof(buf));
	CHECK(poll(&pfd, 1, WAIT_MS) == 1);
	t0 = bp_now_ns();
	got = bp_udp_drain(&r, drained, &d, t0 + 20 * BP_NS_PER_MS, 2 * BP_NS_PER_MS);
	took = bp_now_ns() - t0;
	CHECK(took >= 20 * BP_NS_PER_MS && took <= 21 * BP_NS_PER_MS);
	CHECK(got >= 18 && got <= 21);
	bp_clock_fake_stop();
	bp_udp_receiver_free(&r);
	close(tx);
	close(rx);
}

int main(void)
{
	check_args();
	check_drain();
	for (int sm = BP_UDP_SEND_GSO; sm <= BP_UDP_SEND_PLAIN; sm++)
		for (int rm = BP_UDP_RECV_GRO; rm <= BP_UDP_RECV_PLAIN; rm++) {
			check_transfer(sm, rm, 64);
			check_transfer(sm, rm, 1400);
		}
	for (int rm = BP_UDP_RECV_GRO; rm <= BP_UDP_RECV_PLAIN; rm++)
		check_overflow(BP_UDP_SEND_MMSG, rm);
	check_overflow(BP_UDP_SEND_GSO, BP_UDP_RECV_GRO);
	check_overflow(BP_UDP_SEND_GSO, BP_UDP_RECV_MMSG);
	check_refused();
	check_buffers();
	check_nobufs(BP_UDP_SEND_MMSG);
	check_nobufs(BP_UDP_SEND_PLAIN);
	check_nobufs(BP_UDP_SEND_GSO);
	measure(BP_UDP_SEND_GSO, BP_UDP_RECV_GRO);
	measure(BP_UDP_SEND_GSO, BP_UDP_RECV_MMSG);
	measure(BP_UDP_SEND_MMSG, BP_UDP_RECV_GRO);
	measure(BP_UDP_SEND_MMSG, BP_UDP_RECV_MMSG);
	measure(BP_UDP_SEND_PLAIN, BP_UDP_RECV_PLAIN);
	return tap_done();
}
