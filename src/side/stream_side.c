#include "side/stream_side.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/side_cpu.h"
#include "io/sock.h"
#include "side/side_streams.h"

int bp_stream_side_init(struct bp_stream_side *s, struct bp_stream_pool *pool, uint64_t omit_ns)
{
	memset(s, 0, sizeof(*s));
	s->pool = pool;
	s->omit_ns = omit_ns;
	s->res = calloc(1, sizeof(*s->res));
	s->worker_cpu0 = calloc((size_t)bp_stream_pool_workers(pool), sizeof(uint64_t));
	if (!s->res || !s->worker_cpu0) {
		bp_stream_side_free(s);
		return -ENOMEM;
	}
	s->res->busy_max = NAN;
	return 0;
}

void bp_stream_side_free(struct bp_stream_side *s)
{
	bp_stream_side_release(s);
	free(s->res);
	free(s->worker_cpu0);
	s->res = NULL;
	s->worker_cpu0 = NULL;
}

/* No room for another stream: say so and close what would have been one. */
static int full(const struct bp_stream_side *s, int fd, char *err, size_t errlen)
{
	if (s->n < BP_NET_MAX_STREAMS)
		return 0;
	snprintf(err, errlen, "more than %d streams", BP_NET_MAX_STREAMS);
	if (fd >= 0)
		close(fd);
	return -EINVAL;
}

static void append(struct bp_stream_side *s, struct bp_stream *st, bool sender, int id)
{
	s->streams[s->n] = st;
	s->sender[s->n] = sender;
	s->ids[s->n] = id;
	s->n++;
}

/*
 * What a TCP stream moved, as the kernel counts it: bytes that reached the receiving TCP in
 * order. A sender's own count (bytes written) runs ahead of that by what waits in its socket
 * buffer, up to megabytes a stream: with 128 streams on loopback the sender claimed 7 times
 * what arrived, and that content only drains after the span ends. Acknowledged bytes left
 * the socket and arrived; a receiver's tcpi_bytes_received counts the same bytes on the other
 * end (also those not yet read, so a receiver that stops reading does not undercount what
 * its peer saw acknowledged). Both are the kernel's own counters, read from any thread with
 * no race against the worker. false without them (Linux before 4.1, qemu-user).
 */
static bool kernel_bytes(const struct bp_stream_side *s, int i, uint64_t *bytes)
{
	struct bp_tcp_info ti;

	if (bp_tcp_info_read(bp_stream_fd(s->streams[i]), &ti) || !ti.has_bytes)
		return false;
	*bytes = s->sender[i] ? ti.bytes_acked : ti.bytes_received;
	return true;
}

/*
 * The congestion control a TCP sender runs (iperf3's congestion_used): -C's choice or the
 * kernel's default, which differs between hosts (and namespaces), and which decides how
 * full a bottleneck's queue gets (cubic fills a tail-drop queue, bbr keeps it short). The
 * first sender's is the side's: every stream of a test takes the same -C.
 */
static void note_congestion(struct bp_stream_side *s, int fd)
{
	char name[sizeof(s->res->congestion)] = "";
	socklen_t len = sizeof(name) - 1;

	if (s->res->congestion[0] || getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name, &len))
		return;
	name[len < sizeof(name) ? len : sizeof(name) - 1] = '\0';
	snprintf(s->res->congestion, sizeof(s->res->congestion), "%s", name);
}

int bp_stream_side_add(struct bp_stream_side *s, int fd, bool sender, int id,
		    const struct bp_stream_opts *o, char *err, size_t errlen)
{
	struct bp_stream *st;

	if (full(s, fd, err, errlen))
		return -EINVAL;
	st = bp_stream_add(s->pool, fd, sender ? BP_STREAM_SEND : BP_STREAM_RECV, o, err, errlen);
	if (!st)
		return -EIO;
	append(s, st, sender, id);
	s->tcp[s->n - 1] = true;
	if (sender)
		note_congestion(s, fd);
	/*
	 * A receiver counts from here, before the test (the cookie it read is outside): with -R
	 * the server sends from its own start, a control message before this side's, and what
	 * arrives in between is part of the test, as the sender counts it.
	 */
	if (!sender)
		s->kernel_count[s->n - 1] = kernel_bytes(s, s->n - 1, &s->base_bytes[s->n - 1]);
	return 0;
}

int bp_stream_side_add_udp(struct bp_stream_side *s, int fd, const struct bp_udp_stream_cfg *cfg,
			int id, char *err, size_t errlen)
{
	struct bp_udp_stream *u;
	struct bp_stream *st;

	if (full(s, fd, err, errlen)) {
		/* The stream owns what cfg hands it (a packet engine): release both. */
		u = bp_udp_stream_new(cfg);
		if (u)
			bp_udp_stream_ops.release(u);
		return -EINVAL;
	}
	u = bp_udp_stream_new(cfg);
	if (!u) {
		snprintf(err, errlen, "udp stream: out of memory");
		close(fd);
		return -ENOMEM;
	}
	st = bp_stream_add_custom(s->pool, fd, &bp_udp_stream_ops, u, err, errlen);
	if (!st)
		return -EIO;
	s->udp[s->n] = u;
	append(s, st, cfg->sender, id);
	return 0;
}

int bp_stream_side_add_custom(struct bp_stream_side *s, int fd, const struct bp_stream_ops *ops,
			   void *state, bool sender, int id, struct bp_stream **out, char *err,
			   size_t errlen)
{
	struct bp_stream *st;

	if (full(s, fd, err, errlen)) {
		ops->release(state);
		return -EINVAL;
	}
	st = bp_stream_add_custom(s->pool, fd, ops, state, err, errlen);
	if (!st)
		return -EIO;
	append(s, st, sender, id);
	if (out)
		*out = st;
	return 0;
}

/*
 * What stream i moved so far: for TCP the kernel's count (frozen at the stop), else the
 * pool's byte counter; a UDP stream's stats.
 */
static uint64_t stream_bytes(const struct bp_stream_side *s, int i, struct bp_udp_stats *us)
{
	uint64_t b;

	if (s->udp[i]) {
		bp_udp_stream_stats(s->udp[i], us);
		return us->bytes;
	}
	if (s->frozen)
		return s->end_bytes[i];
	if (!s->kernel_count[i])
		return bp_stream_bytes(s->streams[i]);
	/* A failed read keeps the last count rather than jumping back. */
	return kernel_bytes(s, i, &b) ? b : s->last_bytes[i];
}

static uint32_t stream_retrans(const struct bp_stream_side *s, int i, struct bp_tcp_info *ti)
{
	ti->valid = false;
	if (s->udp[i])
		return 0;
	if (bp_tcp_info_read(bp_stream_fd(s->streams[i]), ti) || !ti->valid)
		return 0;
	return ti->total_retrans;
}

/*
 * Stream i's progress toward the peer: a TCP sender's bytes acknowledged (where TCP_INFO has
 * them), else the bytes it moved. *acked says which it was.
 */
static uint64_t stream_progress(const struct bp_stream_side *s, int i, bool *acked)
{
	struct bp_udp_stats us;
	struct bp_tcp_info ti;

	*acked = false;
	if (s->sender[i] && !s->udp[i] && !bp_tcp_info_read(bp_stream_fd(s->streams[i]), &ti) &&
	    ti.bytes_acked) {
		*acked = true;
		return ti.bytes_acked;
	}
	return stream_bytes(s, i, &us);
}

void bp_stream_side_start(struct bp_stream_side *s, uint64_t now_ns)
{
	struct bp_tcp_info ti;
	bool acked;

	/* this side's threads: the server may share the process (core/side_cpu.h) */
	bp_cpu_side_times(&s->cpu0);
	for (int w = 0; w < bp_stream_pool_workers(s->pool); w++)
		s->worker_cpu0[w] = bp_stream_pool_worker_cpu_ns(s->pool, w);
	for (int i = 0; i < s->n; i++) {
		struct bp_udp_stats us;
		uint64_t b;

		s->base_retrans[i] = s->last_retrans[i] = stream_retrans(s, i, &ti);
		/* the cookie was acknowledged before the test: not part of it */
		s->base_acked[i] = stream_progress(s, i, &acked);
		/* a sender's count starts here (the kernel's holds the cookie); a TCP receiver's
		 * where it was added */
		if (s->sender[i] || !s->kernel_count[i]) {
			s->kernel_count[i] = s->tcp[i] && kernel_bytes(s, i, &b);
			s->base_bytes[i] = stream_bytes(s, i, &us);
		}
		/* -n/-k: the test is its count, what arrived before this side started included
		 * (a stock iperf3 server sends as soon as it is told to run); a UDP receiver's
		 * datagrams are all counted already, its bytes now too (and a stock iperf 2
		 * client's first datagrams, read by serve before the stream's socket existed) */
		if (s->whole_count && !s->sender[i] &&
		    (s->udp[i] || (s->tcp[i] && s->kernel_count[i])))
			s->base_bytes[i] = 0;
		s->last_bytes[i] = s->base_bytes[i];
	}
	s->frozen = false;
	bp_stream_start_all(s->streams, s->n);
	s->progress = 0;
	s->moved_ns = now_ns;
	s->start_ns = s->last_mark_ns = s->counted_from_ns = now_ns;
	s->omit_done = s->omit_ns == 0;
	s->running = true;
	bp_side_streams_start(s);
}

/* Figures of one interval [last mark, now) from the counters and TCP_INFO. */
static void close_interval(struct bp_stream_side *s, uint64_t now_ns, bool omitted)
{
	struct bp_net_interval *iv;
	uint64_t rtt_sum = 0;
	int rtt_n = 0;

	if (s->res->nintervals == BP_NET_MAX_INTERVALS || now_ns <= s->last_mark_ns)
		return;
	iv = &s->res->intervals[s->res->nintervals++];
	memset(iv, 0, sizeof(*iv));
	iv->start_s = (double)(s->last_mark_ns - s->start_ns) / 1e9;
	iv->end_s = (double)(now_ns - s->start_ns) / 1e9;
	iv->omitted = omitted;
	iv->retransmits = -1;
	double jitter = 0;
	int receivers = 0;

	for (int i = 0; i < s->n; i++) {
		struct bp_udp_stats us;
		uint64_t b = stream_bytes(s, i, &us);
		struct bp_tcp_info ti = { 0 };

		*(s->sender[i] ? &iv->sent : &iv->received) += b - s->last_bytes[i];
		s->last_bytes[i] = b;
		if (s->udp[i]) {
			*(s->sender[i] ? &iv->packets_sent : &iv->packets_received) +=
				us.datagrams - s->last_packets[i];
			iv->lost += us.lost - s->last_lost[i];
			s->last_packets[i] = us.datagrams;
			s->last_lost[i] = us.lost;
			if (!s->sender[i]) {
				jitter += us.jitter_ns;
				receivers++;
			}
			continue;
		}
		if (!s->sender[i])
			continue;
		uint32_t r = stream_retrans(s, i, &ti);

		if (ti.valid) {
			iv->retransmits = (iv->retransmits < 0 ? 0 : iv->retransmits) +
					  (r - s->last_retrans[i]);
			s->last_retrans[i] = r;
			if (!iv->cwnd)
				iv->cwnd = ti.snd_cwnd * ti.snd_mss;
			rtt_sum += ti.rtt_us;
			rtt_n++;
		}
	}
	iv->rtt_us = rtt_n ? (uint32_t)(rtt_sum / (uint64_t)rtt_n) : 0;
	iv->jitter_ns = receivers ? jitter / receivers : 0;
	s->last_mark_ns = now_ns;
	bp_side_streams_mark(s);
}

void bp_stream_side_mark(struct bp_stream_side *s, uint64_t now_ns)
{
	if (!s->running)
		return;
	close_interval(s, now_ns, !s->omit_done);
	if (!s->omit_done && now_ns - s->start_ns >= s->omit_ns) {
		/* The counted part starts here: everything so far was the omitted start. */
		for (int i = 0; i < s->n; i++) {
			bool acked;

			if (s->sender[i] && !s->udp[i])
				s->base_acked[i] = stream_progress(s, i, &acked);
			s->base_bytes[i] = s->last_bytes[i];
			s->base_retrans[i] = s->last_retrans[i];
			s->base_packets[i] = s->last_packets[i];
			s->base_lost[i] = s->last_lost[i];
		}
		s->counted_from_ns = now_ns;
		s->omit_done = true;
	}
}

static void fill_cpu(struct bp_stream_side *s)
{
	struct bp_cpu_times c1;
	struct bp_cpu_usage u;
	double wall;

	bp_cpu_side_times(&c1);
	bp_cpu_usage_between(&s->cpu0, &c1, &u);
	/*
	 * The workers' CPU is read now, so it is shared out over the same wall as the side's
	 * (since bp_stream_side_start), not over the span to stop_ns: crr --rate drains its
	 * transactions in flight (up to --timeout) before it stops, and its busiest worker read
	 * 250 % of a core over the 1 s span.
	 */
	wall = u.wall_s * 1e9;
	s->res->cpu_user = u.wall_s > 0 ? u.user_s / u.wall_s * 100 : NAN;
	s->res->cpu_system = u.wall_s > 0 ? u.sys_s / u.wall_s * 100 : NAN;
	s->res->cpu_total = s->res->cpu_user + s->res->cpu_system;
	s->res->busy_max = NAN;
	for (int w = 0; wall > 0 && w < bp_stream_pool_workers(s->pool); w++) {
		double b = (double)(bp_stream_pool_worker_cpu_ns(s->pool, w) - s->worker_cpu0[w]) /
			   wall;

		if (isnan(s->res->busy_max) || b > s->res->busy_max)
			s->res->busy_max = b;
	}
}

/* A UDP stream's totals after the omitted start (stats are cumulative). */
static void fill_udp(const struct bp_stream_side *s, int i, struct bp_net_stream_result *r)
{
	struct bp_udp_stats us;

	bp_udp_stream_stats(s->udp[i], &us);
	r->retransmits = -1;
	r->packets = us.datagrams - (s->omit_done ? s->base_packets[i] : 0);
	r->lost = us.lost - (s->omit_done ? s->base_lost[i] : 0);
	r->out_of_order = us.out_of_order;
	r->duplicates = us.duplicates;
	r->implausible = us.implausible;
	r->kernel_drops = us.kernel_drops;
	r->stalls = us.stalls;
	r->jitter_ns = us.jitter_ns;
}

uint64_t bp_stream_side_moved(struct bp_stream_side *s, uint64_t now_ns)
{
	uint64_t sum = 0;
	bool acked, watched = false;

	/* A UDP sender moves its bytes whether or not any arrive: it shows nothing. */
	for (int i = 0; i < s->n; i++)
		if (!s->sender[i] || !s->udp[i]) {
			sum += stream_progress(s, i, &acked);
			watched = true;
		}
	if (sum != s->progress || !watched) {
		s->progress = sum;
		s->moved_ns = now_ns;
	}
	return s->moved_ns;
}

void bp_stream_side_stop_stalled(struct bp_stream_side *s, uint64_t now_ns)
{
	s->stalled = true;
	bp_stream_side_stop(s, now_ns);
}

/* A stalled side's counted span ends at the last movement (never before it starts). */
static uint64_t totals_end(const struct bp_stream_side *s, uint64_t now_ns)
{
	uint64_t from = s->omit_done ? s->counted_from_ns : s->start_ns;

	if (!s->stalled)
		return now_ns;
	return s->moved_ns > from ? s->moved_ns : from;
}

/* What a stalled TCP sender got acknowledged over the counted span. */
static void stalled_sender_bytes(const struct bp_stream_side *s, int i,
				 struct bp_net_stream_result *r)
{
	bool acked;
	uint64_t a = stream_progress(s, i, &acked);

	if (acked && a >= s->base_acked[i])
		r->bytes = a - s->base_acked[i];
}

/* The path each direction's streams took, last stream wins (all take the same one). */
static void fill_modes(struct bp_stream_side *s)
{
	for (int i = 0; i < s->n; i++) {
		struct bp_udp_stats us;
		const char *mode = bp_stream_mode(s->streams[i]);

		if (s->udp[i]) {
			bp_udp_stream_stats(s->udp[i], &us);
			mode = us.mode;
		}
		if (s->sender[i])
			snprintf(s->res->send_mode, sizeof(s->res->send_mode), "%s", mode);
		else
			snprintf(s->res->recv_mode, sizeof(s->res->recv_mode), "%s", mode);
		/* One sender without the kernel's count makes the side's sum partly written. */
		if (s->sender[i] && s->tcp[i] && strcmp(s->res->sent_counts, "written"))
			snprintf(s->res->sent_counts, sizeof(s->res->sent_counts), "%s",
				 s->kernel_count[i] ? "acked" : "written");
	}
}

/*
 * The TCP counts end now: taken first, they leave out what the streams write in the moment
 * their workers take to stop, and what the socket buffers hand on afterwards. UDP stats are
 * read after the stop, as every datagram a sender counts has left.
 */
void bp_stream_side_freeze(struct bp_stream_side *s)
{
	struct bp_udp_stats us;

	if (!s->running || s->frozen)
		return;
	for (int i = 0; i < s->n; i++)
		s->end_bytes[i] = s->udp[i] ? 0 : stream_bytes(s, i, &us);
	s->frozen = true;
}

void bp_stream_side_stop(struct bp_stream_side *s, uint64_t now_ns)
{
	if (!s->running)
		return;
	bp_stream_side_freeze(s);
	bp_stream_stop_all(s->streams, s->n);
	close_interval(s, now_ns, !s->omit_done);
	s->stop_ns = now_ns;
	s->running = false;
	s->res->nstreams = s->n;
	for (int i = 0; i < s->n; i++) {
		struct bp_net_stream_result *r = &s->res->streams[i];

		r->id = s->ids[i];
		r->sender = s->sender[i];
		/* base: the start, or the omitted start's end once it passed */
		r->bytes = s->last_bytes[i] - s->base_bytes[i];
		r->retransmits = s->sender[i] && s->last_retrans[i] >= s->base_retrans[i] ?
				 (int64_t)(s->last_retrans[i] - s->base_retrans[i]) : -1;
		r->start_s = (double)((s->omit_done ? s->counted_from_ns : s->start_ns) -
				      s->start_ns) / 1e9;
		r->end_s = (double)(totals_end(s, now_ns) - s->start_ns) / 1e9;
		if (s->udp[i])
			fill_udp(s, i, r);
		else if (s->stalled && s->sender[i])
			stalled_sender_bytes(s, i, r);
	}
	bp_side_streams_stop(s);
	fill_modes(s);
	fill_cpu(s);
}

uint64_t bp_stream_side_total_bytes(const struct bp_stream_side *s, bool received_only)
{
	struct bp_udp_stats us;
	uint64_t sum = 0;

	for (int i = 0; i < s->n; i++)
		if (!received_only || !s->sender[i])
			sum += stream_bytes(s, i, &us);
	return sum;
}

void bp_stream_side_counts(const struct bp_stream_side *s, bool sending, uint64_t *tcp_bytes,
			   uint64_t *udp_datagrams)
{
	struct bp_udp_stats us;

	*tcp_bytes = *udp_datagrams = 0;
	for (int i = 0; i < s->n; i++) {
		if (s->sender[i] != sending)
			continue;
		if (!s->udp[i]) {
			*tcp_bytes += stream_bytes(s, i, &us);
			continue;
		}
		bp_udp_stream_stats(s->udp[i], &us);
		*udp_datagrams += us.datagrams + (!sending && us.lost > 0 ? (uint64_t)us.lost : 0);
	}
}

uint64_t bp_stream_side_written(const struct bp_stream_side *s)
{
	uint64_t sum = 0;

	for (int i = 0; i < s->n; i++)
		if (s->sender[i] && s->tcp[i])
			sum += bp_stream_bytes(s->streams[i]);
	return sum;
}

bool bp_stream_side_acks_pending(const struct bp_stream_side *s)
{
	uint64_t acked;

	/* what was acknowledged before the start (a cookie, iperf 2's header) is no write */
	for (int i = 0; i < s->n; i++)
		if (s->sender[i] && s->tcp[i] && s->kernel_count[i] && !s->frozen &&
		    kernel_bytes(s, i, &acked) &&
		    acked - (acked > s->base_acked[i] ? s->base_acked[i] : acked) <
		    bp_stream_bytes(s->streams[i]))
			return true;
	return false;
}

int bp_stream_side_error(const struct bp_stream_side *s)
{
	for (int i = 0; i < s->n; i++)
		if (bp_stream_error(s->streams[i]))
			return bp_stream_error(s->streams[i]);
	return 0;
}

void bp_stream_side_release(struct bp_stream_side *s)
{
	bp_stream_release_all(s->streams, s->n);
	s->n = 0;
}
