#include "proto/iperf3_text.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* iperf3 shows three significant digits: 9.99, 99.9, 999. */
static char *three_digits(char *buf, size_t len, double v, const char *unit)
{
	int decimals = v < 9.995 ? 2 : v < 99.95 ? 1 : 0;

	snprintf(buf, len, "%.*f %s", decimals, v, unit);
	return buf;
}

char *bp_iperf3_bytes(char *buf, size_t len, double bytes)
{
	static const char *const units[] = { "Bytes", "KBytes", "MBytes", "GBytes", "TBytes" };
	int u = 0;

	while (bytes >= 1024 && u < 4) {
		bytes /= 1024;
		u++;
	}
	return three_digits(buf, len, bytes, units[u]);
}

char *bp_iperf3_rate(char *buf, size_t len, double bits_per_s)
{
	static const char *const units[] = { "bits/sec", "Kbits/sec", "Mbits/sec", "Gbits/sec",
					     "Tbits/sec" };
	int u = 0;

	while (bits_per_s >= 1000 && u < 4) {
		bits_per_s /= 1000;
		u++;
	}
	return three_digits(buf, len, bits_per_s, units[u]);
}

struct text {
	char *s;
	size_t len, cap;
};

static void add(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!t->s)
		return;
	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
		va_end(ap);
		if (n < 0) {
			free(t->s);
			t->s = NULL;
			return;
		}
		if ((size_t)n < t->cap - t->len)
			break;
		char *grown = realloc(t->s, t->cap * 2 + (size_t)n);

		if (!grown) {
			free(t->s);
			t->s = NULL;
			return;
		}
		t->s = grown;
		t->cap = t->cap * 2 + (size_t)n;
	}
	t->len += (size_t)n;
}

/* "[  5]   0.00-1.00   sec  11.9 MBytes   100 Mbits/sec" */
static void line(struct text *t, const char *tag, double a, double b, double bytes)
{
	char x[32], y[32];

	add(t, "[%s] %6.2f-%-6.2f sec  %10s  %14s", tag, a, b,
	    bp_iperf3_bytes(x, sizeof(x), bytes),
	    bp_iperf3_rate(y, sizeof(y), b > a ? bytes * 8 / (b - a) : 0));
}

static void udp_loss(struct text *t, double jitter_ns, int64_t lost, uint64_t total)
{
	add(t, "  %.3f ms  %lld/%llu (%.2g%%)", jitter_ns / 1e6, (long long)lost,
	    (unsigned long long)total, total ? 100.0 * (double)lost / (double)total : 0.0);
}

/*
 * A stream's number as iperf3's server prints it: the descriptor of its socket, which is 5
 * for the first stream of a test on a fresh iperf3 -s; here 5, 6, 7, ... in the streams'
 * order (the results' JSON keeps the protocol's ids).
 */
#define FIRST_SHOWN_ID 5

/* The interval lines carry each direction's sum: one stream's number, else [SUM]. */
static const char *interval_tag(int streams, char *buf, size_t len)
{
	if (streams > 1)
		return "SUM";
	snprintf(buf, len, "%3d", FIRST_SHOWN_ID);
	return buf;
}

static void intervals(struct text *t, const struct bp_net_params *np,
		      const struct bp_net_results *r)
{
	bool udp = bp_net_params_udp(np);
	int nup = bp_net_params_up_streams(np), ndown = bp_net_params_down_streams(np);
	bool up = nup > 0, down = ndown > 0;
	char upbuf[16], downbuf[16];
	const char *up_tag = down ? "RX-S" : interval_tag(nup, upbuf, sizeof(upbuf));
	const char *down_tag = up ? "TX-S" : interval_tag(ndown, downbuf, sizeof(downbuf));

	for (int i = 0; i < r->nintervals; i++) {
		const struct bp_net_interval *iv = &r->intervals[i];

		/* The sliver between the last mark and TEST_END says nothing at 1 s scale. */
		if ((iv->end_s - iv->start_s) * 1e9 < 0.1 * (double)np->interval_ns)
			continue;
		if (up) {  /* the server receives what the client sends */
			line(t, up_tag, iv->start_s, iv->end_s, (double)iv->received);
			if (udp)
				udp_loss(t, iv->jitter_ns, iv->lost, iv->packets_received +
					 (uint64_t)(iv->lost > 0 ? iv->lost : 0));
			add(t, "%s\n", iv->omitted ? "  (omitted)" : "");
		}
		if (down) {
			line(t, down_tag, iv->start_s, iv->end_s, (double)iv->sent);
			if (udp)
				add(t, "  %llu datagrams", (unsigned long long)iv->packets_sent);
			add(t, "%s\n", iv->omitted ? "  (omitted)" : "");
		}
	}
}

/* One stream's total, or (s NULL) the [SUM] of the streams of that role, as iperf3 ends. */
static void total_line(struct text *t, bool udp, const char *tag,
		       const struct bp_net_stream_result *s)
{
	line(t, tag, s->start_s, s->end_s, (double)s->bytes);
	if (udp && !s->sender)
		udp_loss(t, s->jitter_ns, s->lost,
			 s->packets + (uint64_t)(s->lost > 0 ? s->lost : 0));
	else if (udp)
		add(t, "  %llu datagrams", (unsigned long long)s->packets);
	else if (s->sender && s->retransmits >= 0)
		add(t, "  %4lld", (long long)s->retransmits);
	add(t, "  %s\n", s->sender ? "sender" : "receiver");
}

/*
 * The streams of one role summed as iperf3's [SUM] line shows them: bytes, datagrams and
 * losses added, the span from the first start to the last end, jitter the streams' mean
 * (iperf3's), retransmits added (unknown if any stream's is). 0 streams: none.
 */
static int sum_of(const struct bp_net_results *r, bool sender, struct bp_net_stream_result *sum)
{
	int n = 0;

	*sum = (struct bp_net_stream_result){ .sender = sender };
	for (int i = 0; i < r->nstreams; i++) {
		const struct bp_net_stream_result *s = &r->streams[i];

		if (s->sender != sender)
			continue;
		sum->start_s = n ? (s->start_s < sum->start_s ? s->start_s : sum->start_s) :
			       s->start_s;
		sum->end_s = s->end_s > sum->end_s ? s->end_s : sum->end_s;
		sum->bytes += s->bytes;
		sum->packets += s->packets;
		sum->lost += s->lost;
		sum->jitter_ns += s->jitter_ns;
		sum->retransmits = s->retransmits < 0 || (n && sum->retransmits < 0) ? -1 :
				   sum->retransmits + s->retransmits;
		n++;
	}
	if (n)
		sum->jitter_ns /= n;
	return n;
}

static void totals(struct text *t, const struct bp_net_params *np,
		   const struct bp_net_results *r)
{
	bool udp = bp_net_params_udp(np);
	struct bp_net_stream_result sum;

	for (int i = 0; i < r->nstreams; i++) {
		char tag[16];

		snprintf(tag, sizeof(tag), "%3d", FIRST_SHOWN_ID + i);
		total_line(t, udp, tag, &r->streams[i]);
	}
	/* with -P, each role's [SUM], receivers first as iperf3's server prints them */
	for (int sender = 0; sender < 2; sender++)
		if (sum_of(r, sender, &sum) > 1)
			total_line(t, udp, "SUM", &sum);
}

char *bp_iperf3_text(const struct bp_net_params *np, const struct bp_net_results *r,
		     const char *peer)
{
	struct text t = { .s = malloc(4096), .cap = 4096 };
	const char *head = bp_net_params_udp(np) ?
			   "[ ID] Interval           Transfer     Bitrate         Jitter    "
			   "Lost/Total Datagrams\n" :
			   "[ ID] Interval           Transfer     Bitrate\n";

	if (t.s)
		t.s[0] = '\0';
	add(&t, "Accepted connection from %s (boardperf serve)\n", peer);
	add(&t, "%s", head);
	intervals(&t, np, r);
	add(&t, "- - - - - - - - - - - - - - - - - - - - - - - - -\n%s", head);
	totals(&t, np, r);
	return t.s;
}
