/*
 * Fuzz target for iperf 2's test header and acknowledgement (src/proto/iperf2_header.c), the
 * first bytes a stranger's iperf 2 client sends serve and the answer a stock `iperf -s`
 * gives the client; and for its UDP datagrams (the sequence number, the header inside) and
 * the server's report a client reads (src/proto/iperf2_udp.c); and for the head of a
 * bounceback request (src/proto/iperf2_bounceback.c). A header that decodes must hold every field in its domain, be no longer
 * than the input, and decode again to the same test after the client's writer wrote it (the
 * writer keeps what a 2.1.8 client sends: the extension and, with a start, 80 bytes). The
 * prefix check must agree with the length check on the same first bytes.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "core/be32.h"
#include "proto/iperf2_bounceback.h"
#include "proto/iperf2_burst.h"
#include "proto/iperf2_header.h"
#include "proto/iperf2_udp.h"

static bool same_test(const struct bp_iperf2_header *a, const struct bp_iperf2_header *b)
{
	return a->mode == b->mode && a->threads == b->threads && a->port == b->port &&
	       a->buffer_len == b->buffer_len && a->window == b->window &&
	       a->timed == b->timed && a->duration_ns == b->duration_ns && a->bytes == b->bytes &&
	       a->trip_times == b->trip_times && a->has_start == b->has_start &&
	       a->start_sec == b->start_sec && a->start_usec == b->start_usec &&
	       a->rate == b->rate && a->tos == b->tos;
}

/*
 * The UDP side: a datagram's number decodes within its domain (a FIN's sign removed), the
 * header inside one as the TCP header's checks say, and a report read back after it was
 * written again has the same counts.
 */
static void udp(const uint8_t *data, size_t size)
{
	struct bp_iperf2_udp_report r, again;
	uint8_t out[BP_IPERF2_UDP_REPORT_LEN];
	struct bp_iperf2_header h;
	struct bp_iperf2_dgram d;
	char err[160] = "";

	for (int wide = 0; wide < 2; wide++)
		if (bp_iperf2_dgram_decode(data, size, wide, &d) == 0 &&
		    (d.usec >= 1000000 || d.seq > (uint64_t)INT64_MAX + 1 ||
		     (!wide && d.seq > 0x80000000ull)))
			abort();
	if (bp_iperf2_udp_header_parse(data, size, &h, err, sizeof(err)) == 0) {
		if (h.len + BP_IPERF2_DGRAM_LEN > size || h.threads < 1 ||
		    h.threads > BP_IPERF2_MAX_THREADS)
			abort();
	} else if (!err[0]) {
		abort();
	}
	if (bp_iperf2_udp_report_parse(data, size, &r) != 0)
		return;
	bp_iperf2_udp_report_write(out, &r);
	if (bp_iperf2_udp_report_parse(out, sizeof(out), &again) != 0 || again.bytes != r.bytes ||
	    again.lost != r.lost || again.out_of_order != r.out_of_order ||
	    again.datagrams != r.datagrams)
		abort();
}

/*
 * A bounceback head that decodes has its size and its send time in their domains, and its
 * first bytes pass the prefix check the server's door makes; one that does not says why.
 */
static void bounceback(const uint8_t *data, size_t size)
{
	struct bp_iperf2_bb bb;
	char err[160] = "";

	if (bp_iperf2_bb_parse(data, size, &bb, err, sizeof(err)) != 0) {
		if (!err[0])
			abort();
		return;
	}
	if (bb.size < BP_IPERF2_BB_HEAD_LEN || bb.size > BP_IPERF2_BB_MAX_SIZE ||
	    bb.client_usec >= 1000000 || !bp_iperf2_bb_prefix(data, size) ||
	    bp_iperf2_bb_is_stop(data) != !!(bb.flags & BP_IPERF2_BB_STOP))
		abort();
}

/*
 * An answer's server times (what rr --iperf2 reads from the peer): taken only with their
 * microseconds in their domain, so that each is its seconds and microseconds exactly.
 */
static void bounceback_answer(const uint8_t *data, size_t size)
{
	uint64_t rx, tx;

	if (size < BP_IPERF2_BB_TIMES_END || !bp_iperf2_bb_server_times(data, &rx, &tx))
		return;
	if (rx / 1000000000u != bp_get_be32(data + BP_IPERF2_BB_RX_AT) ||
	    rx % 1000000000u != bp_get_be32(data + BP_IPERF2_BB_RX_AT + 4) * 1000ull ||
	    tx / 1000000000u != bp_get_be32(data + BP_IPERF2_BB_TX_AT) ||
	    tx % 1000000000u != bp_get_be32(data + BP_IPERF2_BB_TX_AT + 4) * 1000ull)
		abort();
}

/*
 * A --trip-times TCP stream (what serve reads from a peer): read whole or cut in two at any
 * point, the same bursts and the same verdict; never more bursts than whole heads.
 */
static void bursts(const uint8_t *data, size_t size)
{
	struct bp_iperf2_burst_reader whole, cut;
	size_t at = size ? data[0] % (size + 1) : 0;

	bp_iperf2_burst_init(&whole, 0);
	bp_iperf2_burst_init(&cut, 0);
	bp_iperf2_burst_feed(&whole, data, size, 1);
	bp_iperf2_burst_feed(&cut, data, at, 1);
	bp_iperf2_burst_feed(&cut, data + at, size - at, 1);
	if (whole.transit.n != cut.transit.n || strcmp(whole.broken, cut.broken) ||
	    whole.transit.n > size / BP_IPERF2_BURST_HEAD_LEN)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bp_iperf2_header h, again;
	uint8_t out[BP_IPERF2_HEADER_MAX];
	uint32_t vu, vl;
	char err[160];
	size_t len;

	udp(data, size);
	bounceback(data, size);
	bounceback_answer(data, size);
	bursts(data, size);
	if (size >= 4 && bp_iperf2_header_prefix(data, size) != (bp_iperf2_header_len(data) > 0))
		abort();
	if (bp_iperf2_ack_parse(data, size, &vu, &vl) == 0 && size < BP_IPERF2_ACK_LEN)
		abort();
	if (bp_iperf2_header_parse(data, size, &h, err, sizeof(err)) != 0) {
		if (!err[0])
			abort();	/* a refusal always says why */
		return 0;
	}
	if (h.len > size || h.len > BP_IPERF2_HEADER_MAX || h.threads < 1 ||
	    h.threads > BP_IPERF2_MAX_THREADS || (h.timed ? !h.duration_ns : !h.bytes) ||
	    h.duration_ns > 86400ull * 1000000000 || h.start_usec >= 1000000)
		abort();
	/* the writer speaks the modes a 2.1 client asks over one connection */
	if (h.mode == BP_IPERF2_DUAL || h.mode == BP_IPERF2_TRADEOFF || !h.extended)
		return 0;
	h.upper &= (uint16_t)~(BP_IPERF2_UPPER_REVERSE | BP_IPERF2_UPPER_FULLDUPLEX);
	len = bp_iperf2_header_write(&h, out, sizeof(out));
	if (!len || bp_iperf2_header_parse(out, len, &again, err, sizeof(err)) != 0 ||
	    !same_test(&h, &again))
		abort();
	return 0;
}
