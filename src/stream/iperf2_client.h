/*
 * boardperf tcp --iperf2: the client's side of iperf 2's TCP test toward a stock `iperf -s`
 * (or boardperf serve), docs/iperf2.md "boardperf against iperf -s". No control connection:
 * each data connection opens with the test header (proto/iperf2_header.h); the client ends
 * its sending with its FIN and waits for the server's close, and with -R reads until the
 * server's FIN. The steps the stream client (stream_client.c) takes in place of the control
 * protocol's, over the same stream side.
 */
#ifndef BP_STREAM_IPERF2_CLIENT_H
#define BP_STREAM_IPERF2_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "proto/iperf2_header.h"
#include "proto/params.h"
#include "proto/results.h"
#include "side/stream_side.h"

/* The test header of np's test for one connection or UDP socket (bytes: its -n share). */
void bp_iperf2_client_header(const struct bp_net_params *np, uint64_t bytes,
			     struct bp_iperf2_header *h);

/*
 * The header on connection fd of a test of np (threads: its connections; bytes: this
 * connection's -n share, 0 for a timed test): written whole before deadline_ns. 0, or a
 * negative errno with the line in err.
 */
int bp_iperf2_client_hello(int fd, const struct bp_net_params *np, uint64_t bytes,
			   uint64_t deadline_ns, char *err, size_t errlen);

/*
 * The end of the data, iperf 2's way, before the side stops: this side's senders stop
 * writing, their FIN follows, and the test waits until what they wrote was acknowledged
 * (what the server counts); its receivers read until the server's FIN (iperf -s sends for
 * its -t, then closes). Until deadline_ns at most. Returns when it was done: the span's end.
 */
uint64_t bp_iperf2_client_drain(struct bp_stream_side *s, uint64_t deadline_ns);

/*
 * After the side stopped: each connection's sending shut down, and what the server still
 * sends (its acknowledgement of the header, the rest of -R's data) read until it closes,
 * before deadline_ns: a close with unread bytes would reset the server's connection.
 */
void bp_iperf2_client_close(const struct bp_stream_side *s, uint64_t deadline_ns);

/*
 * The server's figures, which iperf 2 does not send: what this side's TCP saw the server's
 * TCP take (its senders' acknowledged bytes) or send (its receivers' bytes), as the peer's
 * streams, roles turned round; no intervals, its CPU unknown.
 */
void bp_iperf2_client_mirror(const struct bp_net_results *local, struct bp_net_results *remote);

/*
 * udp --iperf2 -R: the server sends to this socket (fd, connected to it) once it has the
 * test header. As iperf -c -R does, the first datagram (number 1, this host's time, the
 * header hdr, len bytes in all) goes out again after a random wait of up to 20 ms while
 * nothing came back, 100 times at most; what came stays queued for the receiver. 0, or a
 * negative errno with the line in err (the port refused it: no UDP server there; nothing
 * came: the server never answered).
 */
int bp_iperf2_client_udp_first(int fd, size_t len, const uint8_t *hdr, size_t hdr_len,
			       char *err, size_t errlen);

/*
 * udp --iperf2 -R, after the side stopped: the server's sending streams in remote, as this
 * side's receivers saw them (iperf 2 sends no figures back): datagrams numbered up to its
 * FIN (the FIN itself no data), len bytes each; and each receiver's one-way delays (the
 * transits of its datagrams) into its own result when trip_times.
 */
void bp_iperf2_client_udp_reverse_end(const struct bp_stream_side *s, size_t len,
				      bool trip_times, struct bp_net_results *remote);

/*
 * udp --iperf2, after the side stopped: each sending socket's FIN (its last number + 1,
 * negated, in a datagram of len bytes with the test header hdr), again every 10 ms until
 * the server's report comes, 2 s at most per socket (iperf -c's), and the reports as the
 * server's receiving streams in remote (the FIN, which the report counts, left out).
 * 0, or -ETIMEDOUT with the line in err when a report never came (the others are there).
 */
int bp_iperf2_client_udp_end(const struct bp_stream_side *s, size_t len, const uint8_t *hdr,
			     size_t hdr_len, struct bp_net_results *remote, char *err,
			     size_t errlen);

#endif
