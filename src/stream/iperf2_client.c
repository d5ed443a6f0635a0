/* boardperf tcp --iperf2 (iperf2_client.h). */
#include "stream/iperf2_client.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "io/sock.h"
#include "io/stream_pool.h"
#include "proto/iperf2_header.h"
#include "proto/iperf2_udp.h"
#include "side/udp_stream.h"

/* How often the drain looks at the acknowledgements and the receivers' ends */
#define DRAIN_POLL_NS (1 * BP_NS_PER_MS)
/* How often the header's acknowledgement is looked for */
#define ACK_POLL_NS (50 * BP_NS_PER_US)

/*
 * The header is no data: the sending stream counts what was acknowledged from its start
 * on, so the header's acknowledgement comes first (a round trip; a kernel that does not
 * count acknowledgements, qemu-user's, is not waited for).
 */
static void wait_acked(int fd, size_t len, uint64_t deadline_ns)
{
	struct bp_tcp_info ti;
	uint64_t now;

	while (!bp_tcp_info_read(fd, &ti) && ti.has_bytes && ti.bytes_acked < len &&
	       (now = bp_now_ns()) < deadline_ns)
		bp_sleep_until_ns(now + ACK_POLL_NS);
}

void bp_iperf2_client_header(const struct bp_net_params *np, uint64_t bytes,
			     struct bp_iperf2_header *h)
{
	*h = (struct bp_iperf2_header){
		.threads = (uint32_t)np->parallel, .buffer_len = (uint32_t)np->len,
		.window = (uint32_t)np->window, .extended = true,
		.version_u = 0x00020001, .version_l = 0x00080003,  /* 2.1.8's, as its peers know */
		.rate = np->bandwidth > 0 ? (uint64_t)np->bandwidth : 0,
		.mode = np->bidir ? BP_IPERF2_FULL_DUPLEX : np->reverse ? BP_IPERF2_REVERSE :
			BP_IPERF2_NORMAL,
		.timed = !bytes, .duration_ns = np->time_ns, .bytes = bytes,
		.trip_times = np->trip_times,
	};
	/* --trip-times announces the clocks agree with the client's start on its wall clock */
	if (np->trip_times) {
		struct timespec now;

		clock_gettime(CLOCK_REALTIME, &now);
		h->has_start = true;
		h->start_sec = (uint32_t)now.tv_sec;
		h->start_usec = (uint32_t)(now.tv_nsec / 1000);
	}
}

int bp_iperf2_client_hello(int fd, const struct bp_net_params *np, uint64_t bytes,
			   uint64_t deadline_ns, char *err, size_t errlen)
{
	struct bp_iperf2_header h;
	uint8_t b[BP_IPERF2_HEADER_MAX];
	size_t len, off = 0;

	bp_iperf2_client_header(np, bytes, &h);
	len = bp_iperf2_header_write(&h, b, sizeof(b));

	while (off < len) {
		struct pollfd p = { .fd = fd, .events = POLLOUT };
		uint64_t now = bp_now_ns();
		ssize_t n;

		if (now >= deadline_ns || poll(&p, 1, (int)((deadline_ns - now) / BP_NS_PER_MS) + 1)
		    <= 0) {
			snprintf(err, errlen, "iperf 2's test header not sent: the server takes "
				 "nothing");
			return -ETIMEDOUT;
		}
		n = send(fd, b + off, len - off, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0 && errno != EAGAIN && errno != EINTR) {
			int rc = -errno;

			snprintf(err, errlen, "iperf 2's test header: %s", strerror(errno));
			return rc;
		}
		if (n > 0)
			off += (size_t)n;
	}
	wait_acked(fd, len, deadline_ns);
	return 0;
}

/* TCP: the server's FIN came (or the connection broke); UDP (-R): its FIN datagram */
static bool receivers_ended(const struct bp_stream_side *s)
{
	for (int i = 0; i < s->n; i++) {
		struct bp_udp_stats us;

		if (s->sender[i])
			continue;
		if (s->udp[i]) {
			bp_udp_stream_stats(s->udp[i], &us);
			if (!us.fin)
				return false;
		} else if (!bp_stream_eof(s->streams[i]) && !bp_stream_error(s->streams[i])) {
			return false;
		}
	}
	return true;
}

uint64_t bp_iperf2_client_drain(struct bp_stream_side *s, uint64_t deadline_ns)
{
	uint64_t now;

	/*
	 * The FIN right after the last byte: the server's TCP acknowledges a FIN at once, where
	 * the last segment alone waited for its delayed ACK (40 ms on Linux: -t 2 at 600
	 * Mbit/s read 588).
	 */
	for (int i = 0; i < s->n; i++)
		if (s->sender[i]) {
			bp_stream_stop(s->streams[i]);
			if (s->tcp[i])  /* a UDP socket's FIN is a datagram, sent after */
				shutdown(bp_stream_fd(s->streams[i]), SHUT_WR);
		}
	while ((now = bp_now_ns()) < deadline_ns &&
	       (bp_stream_side_acks_pending(s) || !receivers_ended(s)))
		bp_sleep_until_ns(now + DRAIN_POLL_NS);
	return now;
}

/* The distinct sockets of the side (--full-duplex: two streams, two descriptors of one). */
void bp_iperf2_client_close(const struct bp_stream_side *s, uint64_t deadline_ns)
{
	for (int i = 0; i < s->n; i++)
		shutdown(bp_stream_fd(s->streams[i]), SHUT_WR);
	for (int i = 0; i < s->n; i++) {
		int fd = bp_stream_fd(s->streams[i]);
		uint64_t now;

		while ((now = bp_now_ns()) < deadline_ns) {
			struct pollfd p = { .fd = fd, .events = POLLIN };

			if (poll(&p, 1, (int)((deadline_ns - now) / BP_NS_PER_MS) + 1) <= 0 ||
			    bp_recv_discard(fd, 1 << 20, MSG_DONTWAIT, false) <= 0)
				break;
		}
	}
}

void bp_iperf2_client_mirror(const struct bp_net_results *local, struct bp_net_results *remote)
{
	remote->cpu_total = remote->cpu_user = remote->cpu_system = NAN;
	remote->busy_max = NAN;
	remote->nintervals = 0;
	/* how iperf -s reads and writes is its own */
	snprintf(remote->send_mode, sizeof(remote->send_mode), "unknown");
	snprintf(remote->recv_mode, sizeof(remote->recv_mode), "unknown");
	remote->nstreams = local->nstreams;
	for (int i = 0; i < local->nstreams; i++) {
		remote->streams[i] = (struct bp_net_stream_result){
			.id = local->streams[i].id, .sender = !local->streams[i].sender,
			.bytes = local->streams[i].bytes, .retransmits = -1,
			.start_s = local->streams[i].start_s, .end_s = local->streams[i].end_s,
		};
	}
}

/* How often a FIN goes out again while no report came, and for how long (iperf -c's) */
#define FIN_RETRY_NS (10 * BP_NS_PER_MS)
#define FIN_TRIES 200

/* One socket's FIN until its report comes: 0 with *r filled, -ETIMEDOUT. */
static int fin_until_report(int fd, uint8_t *dgram, size_t len, uint64_t last,
			    struct bp_iperf2_udp_report *r)
{
	uint8_t in[256];

	for (int k = 0; k < FIN_TRIES; k++) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		struct timeval tv;
		ssize_t n;

		gettimeofday(&tv, NULL);
		/* each repeat numbered one further, as iperf -c does, so none is a duplicate */
		bp_iperf2_dgram_encode(dgram, -(int64_t)(last + 1 + (uint64_t)k),
				       (uint32_t)tv.tv_sec, (uint32_t)tv.tv_usec);
		if (send(fd, dgram, len, MSG_NOSIGNAL) < 0 && errno != ECONNREFUSED)
			return -errno;
		if (poll(&p, 1, (int)(FIN_RETRY_NS / BP_NS_PER_MS)) <= 0)
			continue;
		n = recv(fd, in, sizeof(in), MSG_DONTWAIT);
		/* an answer to the header (-X's acknowledgement) is no report */
		if (n > 0 && (size_t)n != BP_IPERF2_ACK_LEN &&
		    bp_iperf2_udp_report_parse(in, (size_t)n, r) == 0)
			return 0;
	}
	return -ETIMEDOUT;
}

int bp_iperf2_client_udp_end(const struct bp_stream_side *s, size_t len, const uint8_t *hdr,
			     size_t hdr_len, struct bp_net_results *remote, char *err,
			     size_t errlen)
{
	size_t cap = len > BP_IPERF2_DGRAM_LEN + hdr_len ? len : BP_IPERF2_DGRAM_LEN + hdr_len;
	uint8_t *dgram = calloc(1, cap);
	int rc = 0, missing = 0;

	if (!dgram)
		return -ENOMEM;
	memcpy(dgram + BP_IPERF2_DGRAM_LEN, hdr, hdr_len);
	remote->cpu_total = remote->cpu_user = remote->cpu_system = NAN;
	remote->busy_max = NAN;
	snprintf(remote->recv_mode, sizeof(remote->recv_mode), "unknown");
	remote->nstreams = 0;
	for (int i = 0; i < s->n; i++) {
		struct bp_net_stream_result *out = &remote->streams[remote->nstreams];
		struct bp_iperf2_udp_report r;
		struct bp_udp_stats us;

		if (!s->sender[i] || !s->udp[i])
			continue;
		bp_udp_stream_stats(s->udp[i], &us);
		if (fin_until_report(bp_stream_fd(s->streams[i]), dgram, cap, us.datagrams, &r)) {
			missing++;
			continue;
		}
		/* the report counts the FIN (its number is the total, its bytes are in): the
		 * data datagrams are the rest */
		*out = (struct bp_net_stream_result){
			.id = s->ids[i], .sender = false, .retransmits = -1,
			.packets = r.datagrams > r.lost + 1 ? r.datagrams - r.lost - 1 : 0,
			.lost = (int64_t)r.lost, .out_of_order = r.out_of_order,
			.bytes = r.bytes > cap ? r.bytes - cap : 0,
			.jitter_ns = r.jitter_s * 1e9, .start_s = 0, .end_s = r.stop_s,
		};
		/* --trip-times: the one-way delay, as the server read it (its clock less ours) */
		bp_welford_init(&out->owd);
		if (r.transit && r.transit_count)
			out->owd = (struct bp_welford){
				.n = r.transit_count, .mean = r.transit_sum_s / r.transit_count * 1e9,
				.m2 = r.transit_m2 * 1e18, .min = r.transit_min_s * 1e9,
				.max = r.transit_max_s * 1e9,
			};
		remote->nstreams++;
	}
	free(dgram);
	if (missing) {
		snprintf(err, errlen, "no server report for %d of the UDP sockets within 2 s of "
			 "their FIN (iperf -s answers each; its figures are missing)", missing);
		rc = -ETIMEDOUT;
	}
	return rc;
}

/* udp -R's first datagram: how often it goes (iperf -c's), and its longest wait */
#define FIRST_TRIES 100
#define FIRST_WAIT_MAX_MS 20

int bp_iperf2_client_udp_first(int fd, size_t len, const uint8_t *hdr, size_t hdr_len,
			       char *err, size_t errlen)
{
	size_t cap = len > BP_IPERF2_DGRAM_LEN + hdr_len ? len : BP_IPERF2_DGRAM_LEN + hdr_len;
	uint8_t *dgram = calloc(1, cap);
	unsigned seed = (unsigned)bp_now_ns();
	int rc = -ETIMEDOUT;

	if (!dgram)
		return -ENOMEM;
	memcpy(dgram + BP_IPERF2_DGRAM_LEN, hdr, hdr_len);
	for (int k = 0; k < FIRST_TRIES && rc == -ETIMEDOUT; k++) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		struct timeval tv;
		int soerr = 0;
		socklen_t sl = sizeof(soerr);

		gettimeofday(&tv, NULL);
		bp_iperf2_dgram_encode(dgram, 1, (uint32_t)tv.tv_sec, (uint32_t)tv.tv_usec);
		if (send(fd, dgram, cap, MSG_NOSIGNAL) < 0 && errno != ECONNREFUSED) {
			rc = -errno;
			snprintf(err, errlen, "udp --iperf2 -R: the test header: %s",
				 strerror(errno));
			break;
		}
		if (poll(&p, 1, (int)(rand_r(&seed) % (FIRST_WAIT_MAX_MS + 1))) <= 0)
			continue;
		if (!(p.revents & POLLERR))
			rc = 0;  /* the server's first datagram: the receiver counts it */
		else if (!getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) &&
			 soerr == ECONNREFUSED) {
			rc = -ECONNREFUSED;
			snprintf(err, errlen, "udp --iperf2 -R: the server's port refused the test "
				 "header (no iperf -s -u there)");
		}
	}
	if (rc == -ETIMEDOUT)
		snprintf(err, errlen, "udp --iperf2 -R: no datagram from the server after %d "
			 "test headers (%.1f s at most): is it iperf -s -u on that port?",
			 FIRST_TRIES, FIRST_TRIES * FIRST_WAIT_MAX_MS / 1e3);
	free(dgram);
	return rc;
}

void bp_iperf2_client_udp_reverse_end(const struct bp_stream_side *s, size_t len,
				      bool trip_times, struct bp_net_results *remote)
{
	remote->cpu_total = remote->cpu_user = remote->cpu_system = NAN;
	remote->busy_max = NAN;
	snprintf(remote->send_mode, sizeof(remote->send_mode), "unknown");
	remote->nstreams = 0;
	for (int i = 0; i < s->n; i++) {
		struct bp_net_stream_result *local = NULL;
		struct bp_udp_stats us;
		uint64_t sent;

		if (s->sender[i] || !s->udp[i])
			continue;
		bp_udp_stream_stats(s->udp[i], &us);
		/* the FIN carries the number after the last data datagram's */
		sent = us.fin && us.top_seq ? us.top_seq - 1 : us.top_seq;
		for (int k = 0; k < s->res->nstreams; k++)
			if (s->res->streams[k].id == s->ids[i])
				local = &s->res->streams[k];
		remote->streams[remote->nstreams++] = (struct bp_net_stream_result){
			.id = s->ids[i], .sender = true, .retransmits = -1, .packets = sent,
			.bytes = sent * len, .start_s = local ? local->start_s : 0,
			.end_s = local ? local->end_s : 0,
		};
		if (local && trip_times)
			local->owd = us.transit;
	}
}
