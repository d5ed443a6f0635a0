#include "rr/rr_flow_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "io/sock.h"
#include "rr/rr_responder.h"

/* An open-loop transaction that starts this much after its due time counts as late. */
#define LATE_SLACK_NS (1 * BP_NS_PER_MS)

struct bp_rr_flow *bp_rr_flow_new(const struct bp_rr_flow_cfg *cfg)
{
	struct bp_rr_flow *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->cfg = *cfg;
	f->flow.fd = -1;
	f->watchdog.fd = -1;
	bp_welford_init(&f->owd_up);
	bp_welford_init(&f->owd_down);
	f->buf = calloc(1, BP_COOKIE_LEN + cfg->req_len);
	if (!f->buf) {
		free(f);
		return NULL;
	}
	if (cfg->crr)
		memcpy(f->buf, cfg->cookie, BP_COOKIE_LEN);
	return f;
}

void bp_rr_flow_set_stats(struct bp_rr_flow *f, struct bp_txn_stats *stats)
{
	f->cfg.stats = stats;
}

int bp_rr_flow_error(const struct bp_rr_flow *f)
{
	return __atomic_load_n(&f->error, __ATOMIC_RELAXED);
}

uint64_t bp_rr_flow_done(const struct bp_rr_flow *f)
{
	return __atomic_load_n(&f->done, __ATOMIC_RELAXED);
}

void bp_rr_flow_owd(const struct bp_rr_flow *f, struct bp_welford *up, struct bp_welford *down)
{
	bp_welford_merge(up, &f->owd_up);
	bp_welford_merge(down, &f->owd_down);
}

/* The wall clock, which the peer's times in a bounceback answer are read against. */
static uint64_t wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * BP_NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

/*
 * The wall clock and bp_now_ns() read as one instant: the wall between two monotonic reads,
 * taken as their midpoint when they are at most PAIR_SPREAD_NS apart. A thread preempted
 * between two plain reads (on a busy machine, in one request of a few hundred) would put the
 * whole preemption between the clocks, and an answer's delay read against them would go
 * negative (fresh-clone CI run 93 under ASan, side by side; beside three busy loops, the
 * least answer delay read negative in 5 of 8 one-second runs with two plain reads, in 0 of
 * 8 with the pair).
 */
#define PAIR_SPREAD_NS 2000

static void read_both_clocks(uint64_t *wall, uint64_t *mono)
{
	for (int i = 0; i < 8; i++) {
		uint64_t m0 = bp_now_ns(), w = wall_ns(), m1 = bp_now_ns();

		*wall = w;
		*mono = m0 + (m1 - m0) / 2;
		if (m1 - m0 <= PAIR_SPREAD_NS)
			return;
	}
}

/* rr --iperf2: the next request's head (its number, this host's send time). */
static void bb_request(struct bp_rr_flow *f)
{
	read_both_clocks(&f->bb_sent_wall_ns, &f->bb_sent_ns);
	bp_iperf2_bb_request((uint8_t *)f->buf + BP_COOKIE_LEN, (uint32_t)f->cfg.req_len,
			     (uint32_t)++f->seq, f->cfg.trip_times, f->bb_sent_wall_ns);
}

/*
 * rr --iperf2: a whole answer came. It must be the request sent back (its number): anything
 * else is not a bounceback server, and the flow ends. With --trip-times the server's two
 * times give each direction's delay; a server that writes none (all ones) gives none. The
 * answer's wall time is the send's plus what bp_now_ns() saw pass until now, the instant the
 * round trip ends at, so the two delays add up to the round trip less the server's time: a
 * second reading of the wall clock here put into the answer's delay whatever came between
 * (a stall of the thread, a step of the clock) that the round trip never saw (fresh-clone
 * CI run 90 under ASan: the delays' means 7.5 us over the round trip's, 29,757 answers).
 */
static bool bb_answered(struct bp_rr_flow *f, uint64_t now)
{
	uint64_t rx, tx;

	if (bp_iperf2_bb_id(f->bb_answer) != (uint32_t)f->seq) {
		bp_rr_flow_fail(f, BP_RR_FAIL_OTHER, EBADMSG, now);
		return false;
	}
	if (f->cfg.trip_times && bp_iperf2_bb_server_times(f->bb_answer, &rx, &tx)) {
		/* the difference first: a double holds a wall-clock ns to 256 ns only */
		bp_welford_add(&f->owd_up, (double)(int64_t)(rx - f->bb_sent_wall_ns));
		bp_welford_add(&f->owd_down,
			       (double)(int64_t)(f->bb_sent_wall_ns + (now - f->bb_sent_ns) - tx));
	}
	return true;
}

ssize_t bp_rr_flow_recv_answer(struct bp_rr_flow *f, int flags)
{
	if (f->cfg.iperf2_bb && f->got < sizeof(f->bb_answer))
		return recv(f->flow.fd, f->bb_answer + f->got, sizeof(f->bb_answer) - f->got,
			    flags);
	return bp_recv_discard(f->flow.fd, 1 << 20, flags, f->cfg.sctp);
}

void bp_rr_flow_set_events(struct bp_rr_flow *f, uint32_t events)
{
	/* bp_rr_flow_crr_inline polls for them itself; an epoll registration would cost two calls more. */
	if (f->in_inline && !f->registered) {
		f->flow.events = events;
		return;
	}
	if (!f->registered) {
		f->flow.events = events;
		f->registered = !bp_loop_add(f->loop, &f->flow);
	} else if (f->flow.events != events) {
		bp_loop_mod(&f->flow, events);
	}
}

void bp_rr_flow_unregister(struct bp_rr_flow *f)
{
	if (f->registered)
		bp_loop_del(&f->flow);
	f->registered = false;
}

/* crr: the connection of this transaction is over. */
void bp_rr_flow_close_conn(struct bp_rr_flow *f)
{
	bp_rr_flow_unregister(f);
	if (f->flow.fd >= 0)
		close(f->flow.fd);
	f->flow.fd = -1;
}

void bp_rr_flow_finish_ok(struct bp_rr_flow *f, uint64_t now)
{
	if (f->cfg.iperf2_bb && !bb_answered(f, now))
		return;
	f->busy = false;
	if (f->phase == BP_RR_PH_VERIFY) {
		__atomic_add_fetch(&f->cfg.concurrent->alive, 1, __ATOMIC_RELAXED);
		bp_rr_flow_close_conn(f);
		bp_rr_flow_schedule(f, now);
		return;
	}
	bp_txn_stats_done(f->cfg.stats, now, now - f->t0, f->late, 0);
	__atomic_add_fetch(f->parent ? &f->parent->done : &f->done, 1, __ATOMIC_RELAXED);
	if (f->cfg.crr && f->cfg.concurrent)
		bp_rr_flow_hold_conn(f);
	else if (f->cfg.crr)
		bp_rr_flow_close_conn(f);
	bp_rr_flow_schedule(f, now);
}

/*
 * crr: the SYN retransmissions of the connection being made (TCP_INFO's total_retrans, which
 * counts them from the first SYN on). Each one means a SYN the path dropped and a wait of
 * TCP's initial RTO (1 s, then 2 s, ...) before the next: read only for a connection made,
 * refused or reset after at least SYN_RTO_MIN_NS, or given up, so the fast path pays no
 * system call for it.
 */
#define SYN_RTO_MIN_NS (200 * BP_NS_PER_MS)

static void count_syn_retransmits(struct bp_rr_flow *f, uint64_t now)
{
	struct bp_tcp_info ti;

	if (f->flow.fd >= 0 && !bp_tcp_info_read(f->flow.fd, &ti) && ti.valid && ti.total_retrans)
		bp_txn_stats_retransmits(f->cfg.stats, now, ti.total_retrans);
}

void bp_rr_flow_fail(struct bp_rr_flow *f, unsigned kind, int err, uint64_t now)
{
	/* a connection refused or reset after a SYN went again counts that SYN too (a DUT
	 * that limits new connections: the first SYN let through and lost, the next refused) */
	if (f->connecting && (kind == BP_RR_FAIL_TIMEOUT || now - f->connect_t0 >= SYN_RTO_MIN_NS))
		count_syn_retransmits(f, now);
	f->busy = false;
	f->connecting = false;
	if (f->phase == BP_RR_PH_VERIFY)
		__atomic_add_fetch(&f->cfg.concurrent->dropped, 1, __ATOMIC_RELAXED);
	else
		bp_txn_stats_fail(f->cfg.stats, now, kind, 1, NULL);
	if (f->cfg.crr) {
		bp_rr_flow_close_conn(f);
	} else if (!f->cfg.udp) {
		/* A broken rr connection cannot carry another request: the flow ends. */
		bp_rr_flow_unregister(f);
		__atomic_store_n(&f->error, -err, __ATOMIC_RELAXED);
		return;
	}
	bp_rr_flow_schedule(f, now);
}

/* Write the rest of the request; false when the connection broke (failure recorded). */
bool bp_rr_flow_write_request(struct bp_rr_flow *f, uint64_t now)
{
	const char *p = f->cfg.crr && f->phase != BP_RR_PH_VERIFY ? f->buf : f->buf + BP_COOKIE_LEN;

	while (f->sent < f->out_len) {
		ssize_t n = send(f->flow.fd, p + f->sent, f->out_len - f->sent,
				 MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
				break;
			bp_rr_flow_fail(f, bp_rr_fail_of(errno), errno, now);
			return false;
		}
		f->sent += (size_t)n;
	}
	bp_rr_flow_set_events(f, f->sent < f->out_len ? EPOLLIN | EPOLLOUT : EPOLLIN);
	return true;
}

static void send_udp(struct bp_rr_flow *f, uint64_t now)
{
	f->seq++;
	memcpy(f->buf + BP_COOKIE_LEN, &f->seq, sizeof(f->seq));
	/* A refused send (full buffer) is a lost request: the timeout counts it. */
	if (send(f->flow.fd, f->buf + BP_COOKIE_LEN, f->cfg.req_len, MSG_DONTWAIT) < 0 &&
	    errno != EAGAIN && errno != ENOBUFS && errno != EWOULDBLOCK)
		bp_rr_flow_fail(f, bp_rr_fail_of(errno), errno, now);
}

static void connected(struct bp_rr_flow *f, uint64_t now)
{
	f->connecting = false;
	bp_txn_stats_connect(f->cfg.stats, now, now - f->connect_t0);
	if (now - f->connect_t0 >= SYN_RTO_MIN_NS)
		count_syn_retransmits(f, now);
	if (f->cfg.connect_only) {
		bp_rr_flow_finish_ok(f, now);  /* closes: this side first, as iperf2 --connect-only */
		return;
	}
	f->sent = 0;
	f->out_len = BP_COOKIE_LEN + f->cfg.req_len;
	bp_rr_flow_write_request(f, now);
}

static void start_connect(struct bp_rr_flow *f, uint64_t now)
{
	const struct sockaddr *sa = (const struct sockaddr *)&f->cfg.addr.ss;
	int fd = socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			f->cfg.sctp ? IPPROTO_SCTP : 0);

	if (fd < 0) {
		bp_rr_flow_fail(f, errno == EMFILE || errno == ENFILE ? BP_RR_FAIL_NO_PORT :
			      BP_RR_FAIL_OTHER, errno, now);
		return;
	}
	f->flow.fd = fd;
	f->connecting = true;
	f->connect_t0 = now;
	if (connect(fd, sa, f->cfg.addr.len) == 0) {
		connected(f, bp_now_ns());
	} else if (errno == EINPROGRESS && (f->cfg.connect_only || f->cfg.sctp)) {
		/*
		 * Writable: the handshake is done. SCTP refuses a send before it (EPIPE: a
		 * one-to-one socket has no association to send on until ESTABLISHED), which on
		 * loopback is most of the time but not always: in the VM 1 in 100-200.
		 */
		bp_rr_flow_set_events(f, EPOLLOUT);
	} else if (errno == EINPROGRESS) {
		uint64_t t = bp_now_ns();
		ssize_t n;

		/*
		 * Send the cookie and the request at once. Where the handshake completed inside
		 * connect() (loopback, a server on this host: the SYN-ACK is processed before the
		 * call returns) this goes through and saves a wait for EPOLLOUT, the SO_ERROR read
		 * and an epoll_ctl per connection, and the connect took until t. While the SYN is
		 * still out TCP refuses a non-blocking send with EAGAIN and the flow waits for the
		 * handshake as before; a refusal already back shows as ECONNREFUSED, as SO_ERROR
		 * would.
		 */
		f->out_len = BP_COOKIE_LEN + f->cfg.req_len;
		n = send(fd, f->buf, f->out_len, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n >= 0) {
			f->connecting = false;
			bp_txn_stats_connect(f->cfg.stats, t, t - f->connect_t0);
			f->sent = (size_t)n;
			bp_rr_flow_write_request(f, t);  /* the rest, if any; then waits for the answer */
		} else if (errno == EAGAIN || errno == EWOULDBLOCK) {
			bp_rr_flow_set_events(f, EPOLLOUT);
		} else {
			bp_rr_flow_fail(f, bp_rr_fail_of(errno), errno, now);
		}
	} else {
		bp_rr_flow_fail(f, bp_rr_fail_of(errno), errno, now);
	}
}

/*
 * The timeout is a timerfd checked lazily: it stays armed across transactions and, when it
 * fires, compares with the current one's start. A loop timer instead would make every
 * epoll wait carry a timeout (an hrtimer set and cancelled per round trip of a few
 * microseconds); re-arming per transaction would cost a system call each.
 */
void bp_rr_flow_set_watchdog(struct bp_rr_flow *f, uint64_t due_ns)
{
	struct itimerspec its = {
		.it_value = { (time_t)(due_ns / BP_NS_PER_SEC), (long)(due_ns % BP_NS_PER_SEC) },
	};

	f->watchdog_armed = !timerfd_settime(f->watchdog.fd, TFD_TIMER_ABSTIME, &its, NULL);
}

void bp_rr_flow_arm_timeout(struct bp_rr_flow *f, uint64_t now)
{
	if (f->parent) {
		bp_rr_flow_slot_arm_timeout(f, now);
		return;
	}
	f->t_begun = now;
	if (!f->watchdog_armed)
		bp_rr_flow_set_watchdog(f, now + f->cfg.timeout_ns);
}

void bp_rr_flow_begin(struct bp_rr_flow *f, uint64_t intended, uint64_t now)
{
	if (bp_txn_stats_ended(f->cfg.stats, now))
		return;  /* the run is over: it would not count, and the server would */
	f->busy = true;
	f->t0 = intended;
	f->late = now > intended + LATE_SLACK_NS;
	if (f->cfg.period_ns)
		bp_txn_stats_started(f->cfg.stats, now);
	f->got = 0;
	f->sent = 0;
	bp_rr_flow_arm_timeout(f, now);
	if (f->cfg.crr) {
		start_connect(f, now);
	} else if (f->cfg.udp) {
		send_udp(f, now);
	} else {
		if (f->cfg.iperf2_bb)
			bb_request(f);
		f->out_len = f->cfg.req_len;
		bp_rr_flow_write_request(f, now);
	}
}

static void timeout_fired(struct bp_flow *w, uint32_t events)
{
	struct bp_rr_flow *f = w->data;
	uint64_t expirations, now = bp_now_ns();

	(void)events;
	if (read(w->fd, &expirations, sizeof(expirations)) < 0)
		return;  /* EAGAIN: a stale wake-up */
	f->watchdog_armed = false;
	if (f->dispatcher && f->running) {
		bp_rr_flow_slots_expire(f, now);
		return;
	}
	if (!f->busy || !f->running)
		return;
	if (now >= f->t_begun + f->cfg.timeout_ns)
		bp_rr_flow_fail(f, BP_RR_FAIL_TIMEOUT, ETIMEDOUT, now);
	else
		bp_rr_flow_set_watchdog(f, f->t_begun + f->cfg.timeout_ns);
}

/* TCP (rr and crr): the answer arrives; crr also waits for the server's FIN. */
static void tcp_readable(struct bp_rr_flow *f, uint64_t now)
{
	/*
	 * crr ends with the server's FIN after a whole answer, except while holding: there the
	 * server closes after its second answer (the check after the hold), so that TIME_WAIT
	 * stays on its side for these connections too.
	 */
	bool until_fin = f->cfg.crr && (!f->cfg.concurrent || f->phase == BP_RR_PH_VERIFY);

	for (;;) {
		ssize_t n = bp_rr_flow_recv_answer(f, MSG_DONTWAIT);

		if (n < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
				bp_rr_flow_fail(f, bp_rr_fail_of(errno), errno, now);
			return;
		}
		if (n == 0) {
			if (until_fin && f->got >= f->cfg.resp_len)
				bp_rr_flow_finish_ok(f, now);
			else
				bp_rr_flow_fail(f, BP_RR_FAIL_RESET, ECONNRESET, now);
			return;
		}
		f->got += (size_t)n;
		if (f->got >= f->cfg.resp_len && !until_fin) {
			bp_rr_flow_finish_ok(f, now);
			return;
		}
	}
}

static void udp_readable(struct bp_rr_flow *f, uint64_t now)
{
	uint64_t seq;

	for (int i = 0; i < 64; i++) {
		ssize_t n = recv(f->flow.fd, &seq, sizeof(seq), MSG_DONTWAIT | MSG_TRUNC);

		if (n < 0)
			return;  /* EAGAIN, or an ICMP error: the timeout will count the loss */
		/* A late answer to a request already given up on is not this one. */
		if (f->busy && (size_t)n >= sizeof(seq) && seq == f->seq) {
			bp_rr_flow_finish_ok(f, now);
			return;
		}
	}
}

void bp_rr_flow_on_event(struct bp_flow *fl, uint32_t events)
{
	struct bp_rr_flow *f = fl->data;
	uint64_t now = bp_now_ns();
	int err = 0;
	socklen_t len = sizeof(err);

	if (f->connecting) {
		/* Writable without an error flag is connected: SO_ERROR is read only when needed. */
		if ((events & (EPOLLERR | EPOLLHUP)) &&
		    getsockopt(fl->fd, SOL_SOCKET, SO_ERROR, &err, &len))
			err = errno;
		if (err)
			bp_rr_flow_fail(f, bp_rr_fail_of(err), err, now);
		else
			connected(f, now);
		return;
	}
	if (f->cfg.udp) {
		udp_readable(f, now);
	} else {
		if ((events & EPOLLOUT) && f->sent < f->out_len && !bp_rr_flow_write_request(f, now))
			return;
		if (events & (EPOLLIN | EPOLLHUP | EPOLLERR))
			tcp_readable(f, now);
	}
	if (f->cfg.alone && !f->cfg.crr && !bp_rr_flow_error(f))
		bp_rr_flow_wait_alone(f);
}

static int ops_start(void *state, struct bp_loop *loop, int fd)
{
	struct bp_rr_flow *f = state;

	f->loop = loop;
	f->flow = (struct bp_flow){ .fd = fd, .handler = bp_rr_flow_on_event, .data = f };
	f->due = (struct bp_timer){ .fn = bp_rr_flow_due_fired, .data = f };
	/* CLOCK_MONOTONIC: the clock bp_now_ns() reads. */
	f->watchdog = (struct bp_flow){ .fd = timerfd_create(CLOCK_MONOTONIC,
							      TFD_NONBLOCK | TFD_CLOEXEC),
					.events = EPOLLIN, .handler = timeout_fired, .data = f };
	if (f->watchdog.fd < 0 || bp_loop_add(loop, &f->watchdog)) {
		int rc = f->watchdog.fd < 0 ? -errno : -ENOMEM;

		if (f->watchdog.fd >= 0)
			close(f->watchdog.fd);
		f->watchdog.fd = -1;
		return rc;
	}
	if (f->cfg.alone && !f->cfg.crr) {
		struct timeval tv = { .tv_usec = 1000 };  /* a wait's bound: 1 ms */

		f->cfg.alone = !bp_sock_set_nonblocking(fd, false) &&
			       !setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	}
	f->start_ns = bp_now_ns();
	f->dispatcher = f->cfg.crr && f->cfg.period_ns && !f->cfg.concurrent &&
			f->cfg.max_inflight && f->cfg.inflight;
	bp_pacer_init_period(&f->sched, f->cfg.period_ns, f->start_ns + f->cfg.phase_ns);
	f->running = true;
	if (!f->cfg.crr)
		bp_rr_flow_set_events(f, EPOLLIN);
	/* From the loop: bp_rr_flow_crr_inline here would hold up the start command. */
	if (f->cfg.connect_only && !f->cfg.period_ns)
		bp_timer_arm(loop, &f->due, f->start_ns);
	else
		bp_rr_flow_schedule(f, f->start_ns);
	return 0;
}

static void ops_stop(void *state, struct bp_loop *loop)
{
	struct bp_rr_flow *f = state;

	f->running = false;
	bp_timer_cancel(loop, &f->due);
	if (f->watchdog.fd >= 0) {
		bp_loop_del(&f->watchdog);
		close(f->watchdog.fd);
		f->watchdog.fd = -1;
	}
	bp_rr_flow_slots_stop(f);
	if (f->cfg.crr)
		bp_rr_flow_close_conn(f);  /* a transaction cut short by the end is not counted */
	else
		bp_rr_flow_unregister(f);
}

static void ops_release(void *state)
{
	struct bp_rr_flow *f = state;

	for (size_t i = 0; i < f->nheld; i++)
		if (f->held[i] >= 0)
			close(f->held[i]);
	if (f->cfg.concurrent) {
		int64_t open = 0;

		for (size_t i = f->verify_i; i < f->nheld; i++)
			open++;
		__atomic_sub_fetch(&f->cfg.concurrent->open_now, open, __ATOMIC_RELAXED);
	}
	bp_rr_flow_slots_free(f);
	free(f->held);
	free(f->buf);
	free(f);
}

const struct bp_stream_ops bp_rr_flow_ops = {
	.start = ops_start, .stop = ops_stop, .release = ops_release,
};
