#include "io/busy_poll.h"

/* The preempted share is kept in 1/65536ths, a moving average over about 64 polls. */
#define SHARE_ONE 65536u
#define SHARE_OFF (SHARE_ONE / 8)

void bp_busy_poll_init(struct bp_busy_poll *b, uint64_t max_ns)
{
	*b = (struct bp_busy_poll){ .max_ns = max_ns,
				    .window_ns = max_ns < BP_BUSY_POLL_STEP_NS ? max_ns :
						 BP_BUSY_POLL_STEP_NS };
}

uint64_t bp_busy_poll_window(const struct bp_busy_poll *b, uint64_t now, uint64_t timeout_ns)
{
	if (!b->max_ns || now < b->off_until || !b->window_ns)
		return 0;
	return b->window_ns < timeout_ns ? b->window_ns : timeout_ns;
}

static void shrink(struct bp_busy_poll *b)
{
	b->window_ns /= 2;
	if (b->window_ns < BP_BUSY_POLL_STEP_NS)
		b->window_ns = 0;
}

void bp_busy_poll_learn(struct bp_busy_poll *b, uint64_t now, uint64_t idle_ns,
			uint64_t window_ns, bool got_event, bool preempted)
{
	if (!b->max_ns)
		return;
	if (window_ns) {
		b->polls++;
		b->polled_ns += idle_ns < window_ns ? idle_ns : window_ns;
		if (got_event && idle_ns <= window_ns)
			b->hits++;
		/* A kernel thread takes the core now and then; a task that shares it for good
		 * (the server itself, on a machine with no core to spare) takes it at almost
		 * every poll. */
		b->preempted_share += ((preempted ? SHARE_ONE : 0) - b->preempted_share) / 64;
	}
	if (b->preempted_share > SHARE_OFF) {
		b->window_ns = 0;
		b->preempted_share = 0;
		b->off_until = now + BP_BUSY_POLL_COOLDOWN_NS;
		return;
	}
	if (preempted) {
		shrink(b);
		return;
	}
	if (!got_event || idle_ns <= window_ns)
		return;  /* a timer's wait, or the poll served it: the window stays */
	if (idle_ns > b->max_ns) {
		/* The event came after the longest poll would have ended: polling was waste. */
		shrink(b);
	} else {
		/* It came soon, but after the window closed: a longer one would have caught it. */
		b->window_ns = b->window_ns ? 2 * b->window_ns : BP_BUSY_POLL_STEP_NS;
		if (b->window_ns > b->max_ns)
			b->window_ns = b->max_ns;
	}
}
