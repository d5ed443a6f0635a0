/*
 * Fuzz target for the packet engine's receiver (bp_pkt_rx_parse, src/io/pkt_rx.c): the
 * frames a TPACKET_V3 RX ring holds come from the peer (anyone who can send to the test's
 * 4-tuple). The first byte picks the family; the rest is one capture, copied to a buffer of
 * exactly its size so ASan sees any read past it. An accepted frame's payload must lie in
 * the capture, and so must the header bytes the stream reads; the stream's header decoder
 * then runs on them, as udp_stream.c does.
 */
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "io/pkt_rx.h"
#include "io/udp_header.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *payload;
	uint8_t *f;
	size_t len, head;
	struct bp_udp_header h;

	if (size < 1)
		return 0;
	f = malloc(size - 1 ? size - 1 : 1);
	if (!f)
		return 0;
	memcpy(f, data + 1, size - 1);
	if (bp_pkt_rx_parse(data[0] & 1 ? AF_INET6 : AF_INET, f, size - 1, &payload, &len)) {
		head = len < BP_PKT_RX_SNAP_PAYLOAD ? len : BP_PKT_RX_SNAP_PAYLOAD;
		if (payload < f || payload + head > f + (size - 1))
			abort();
		bp_udp_header_decode(payload, head, true, &h);
		bp_udp_header_decode(payload, head, false, &h);
	}
	free(f);
	return 0;
}
