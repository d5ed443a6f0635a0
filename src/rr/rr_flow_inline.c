/* The paths of an rr/crr flow that bypass the event loop (see rr_flow_internal.h). */
#include "rr/rr_flow_internal.h"

#include <limits.h>
#include <poll.h>
#include <sys/socket.h>

#include "io/sock.h"

#include "core/clock.h"

/*
 * A closed-loop rr flow alone on its worker waits for each answer inside recv itself (the
 * socket is blocking, SO_RCVTIMEO bounds each wait): one system call per wake-up instead of
 * epoll_wait and then recv, which is what a round trip of a few microseconds notices (the
 * way sockperf waits). Back to the loop at least every ALONE_SLICE_NS, whenever a wait
 * times out or something else happened, and as soon as a stop is pending, so stops, signals
 * and the timeout are seen as always.
 */
#define ALONE_SLICE_NS (10 * BP_NS_PER_MS)

void bp_rr_flow_wait_alone(struct bp_rr_flow *f)
{
	uint64_t until = bp_now_ns() + ALONE_SLICE_NS;

	while (f->running && f->busy && f->sent == f->out_len && !bp_loop_stopping(f->loop) &&
	       bp_now_ns() < until) {
		uint64_t seq = 0;
		ssize_t n = f->cfg.udp ? recv(f->flow.fd, &seq, sizeof(seq), MSG_TRUNC) :
				bp_rr_flow_recv_answer(f, 0);

		if (n <= 0)
			return;  /* timed out, or EOF/error: the loop's handlers deal with it */
		if (f->cfg.udp) {
			if ((size_t)n >= sizeof(seq) && seq == f->seq)
				bp_rr_flow_finish_ok(f, bp_now_ns());
			continue;
		}
		f->got += (size_t)n;
		if (f->got >= f->cfg.resp_len)
			bp_rr_flow_finish_ok(f, bp_now_ns());
	}
}

/*
 * crr --connect-only in a closed loop runs its transactions here, one after another, each
 * waiting in poll() on its own socket instead of in the loop's epoll, which would cost an
 * epoll_ctl to add every new connection and another to remove it, besides the wait (iperf2's
 * connect-only threads block in connect):
 *   - a flow alone on its worker waits up to 1 ms per poll, and goes back to the loop when
 *     a stop is pending and at least every ALONE_SLICE_NS (through the due timer);
 *   - a flow sharing its worker does not wait at all (poll with timeout 0: on a path as
 *     short as loopback the handshake is over when connect returns) and hands over after
 *     INLINE_BURST transactions, so that its neighbours get their turns.
 * A connection not made within the wait is handed to the loop as usual (a SYN the path
 * dropped, a slow server): it registers its socket, and the watchdog times it out.
 * (Whole crr transactions gained nothing from this: their answer always needs the server's
 * turn first, measured 14.3-14.7k vs 14.5-15.0k connections/s through the loop.)
 */
#define INLINE_BURST 8

void bp_rr_flow_crr_inline(struct bp_rr_flow *f)
{
	uint64_t until = bp_now_ns() + ALONE_SLICE_NS;
	int wait_ms = f->cfg.alone ? 1 : 0, budget = f->cfg.alone ? INT_MAX : INLINE_BURST;

	f->in_inline = true;
	do {
		uint64_t now = bp_now_ns();

		f->again = false;
		bp_rr_flow_begin(f, now, now);  /* its end (finish_*, then schedule) sets again */
		while (f->busy && f->flow.fd >= 0) {
			struct pollfd p = { .fd = f->flow.fd, .events = (short)f->flow.events };

			if (poll(&p, 1, wait_ms) <= 0) {
				f->in_inline = false;
				bp_rr_flow_set_events(f, f->flow.events);
				return;
			}
			/* poll's POLLIN/POLLOUT/POLLERR/POLLHUP are epoll's bits on Linux. */
			bp_rr_flow_on_event(&f->flow, (uint32_t)p.revents);
		}
	} while (f->again && --budget > 0 && !bp_loop_stopping(f->loop) && bp_now_ns() < until);
	f->in_inline = false;
	if (f->again)  /* the slice is over: the loop starts the next one */
		bp_timer_arm(f->loop, &f->due, bp_now_ns());
}
