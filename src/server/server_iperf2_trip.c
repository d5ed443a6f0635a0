/*
 * A stock iperf 2 client's TCP test with --trip-times (`iperf -c BOARD -e --trip-times`):
 * each write it sends carries its wall-clock write time (proto/iperf2_burst.h), and serve
 * takes each one's one-way delay as iperf -s does, from the time its last byte was read,
 * into the test's log line. Each of the client's connections has a reader, fed on its
 * stream's worker with every byte as it is read (io/stream_pool.h's inspect), read here
 * once the streams stopped.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <time.h>

#include "board/clock_sync.h"
#include "core/clock.h"
#include "core/log.h"
#include "core/log_limit.h"
#include "proto/iperf2_burst.h"
#include "server/server_iperf2.h"
#include "server/server_iperf2_internal.h"

/* The worker read n bytes of a connection: its wall clock is the bursts' arrival. */
static void burst_read(void *arg, const uint8_t *b, size_t n)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	bp_iperf2_burst_feed(arg, b, n, (uint64_t)ts.tv_sec * BP_NS_PER_SEC + (uint64_t)ts.tv_nsec);
}

void srv_iperf2_inspect(struct srv_session *ss, struct bp_stream_opts *so)
{
	struct srv_iperf2 *i2 = ss->iperf2;
	struct bp_iperf2_burst_reader *r;

	if (!i2 || !i2->h.trip_times || i2->bb || i2->udp || i2->nbursts == BP_IPERF2_MAX_THREADS)
		return;
	/* no memory: the test runs without the delay, the log line says nothing of it */
	if (!i2->bursts && !(i2->bursts = calloc(BP_IPERF2_MAX_THREADS, sizeof(*i2->bursts))))
		return;
	r = &i2->bursts[i2->nbursts++];
	/* the door read the header up to BP_IPERF2_HEADER_START_LEN; the rest comes here */
	bp_iperf2_burst_init(r, i2->h.len > BP_IPERF2_HEADER_START_LEN ?
				i2->h.len - BP_IPERF2_HEADER_START_LEN : 0);
	so->inspect = burst_read;
	so->inspect_arg = r;
}

void srv_iperf2_trip_log(const struct srv_session *ss)
{
	const struct srv_iperf2 *i2 = ss->iperf2;
	struct bp_welford all;

	bp_welford_init(&all);
	for (int i = 0; i < i2->nbursts; i++) {
		if (i2->bursts[i].broken[0]) {
			bp_info_peer(ss->peer, "%s: iperf 2 tcp --trip-times: the client's write "
				     "times unread after %" PRIu64 " writes: %s", ss->peer,
				     i2->bursts[i].transit.n, i2->bursts[i].broken);
			return;
		}
		bp_welford_merge(&all, &i2->bursts[i].transit);
	}
	srv_iperf2_log_owd(ss, "tcp", &all, "writes");
}

void srv_iperf2_log_owd(const struct srv_session *ss, const char *proto,
			const struct bp_welford *w, const char *what)
{
	struct bp_clock_sync c;
	char clock[160];

	if (!w->n)
		return;
	/* The figure holds the two clocks' offset: this end's state beside it (the client's
	 * is in its own result when it is boardperf; iperf 2 carries none) */
	bp_clock_sync_read("/", &c);
	bp_info_peer(ss->peer, "%s: iperf 2 %s --trip-times: one-way delay %.3f ms (min %.3f, "
		     "max %.3f, stdev %.3f) over %" PRIu64 " %s, by the client's clock and this "
		     "host's (%s)", ss->peer, proto, w->mean / 1e6, w->min / 1e6, w->max / 1e6,
		     bp_welford_stddev(w) / 1e6, w->n, what,
		     bp_clock_sync_describe(&c, clock, sizeof(clock)));
}
