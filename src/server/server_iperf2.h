/*
 * A stock iperf 2 client's TCP test on boardperf serve (docs/iperf2.md, "Speaking iperf 2").
 * iperf 2 has no control connection: each of the client's -P connections opens with its test
 * header (proto/iperf2_header.h), read whole at the door (server_pending.c), then carries
 * the data. The connections of one client's test (one address, one header) become one
 * session's streams, admitted under the limits every test meets; the test ends on the
 * signals iperf 2 itself uses: the client's FIN once it stopped sending, and for -R and
 * --full-duplex this server's clock, after which it shuts its own sending down.
 */
#ifndef BP_SERVER_SERVER_IPERF2_H
#define BP_SERVER_SERVER_IPERF2_H

#include <stddef.h>
#include <stdint.h>

struct srv;
struct srv_session;

/*
 * A connection whose first len bytes are an iperf 2 header (fd owned from now on): a stream
 * of the test it belongs to, which it opens when it is the first; refused and closed, with
 * the reason in the log, when the header asks for what this server does not do.
 */
void srv_iperf2_accept(struct srv *s, int fd, const char *peer, const uint8_t *hdr,
		       size_t len);
/*
 * A datagram on the test port's UDP socket that is no hello (server_udp.c): a stock iperf
 * 2 client's UDP test (server_iperf2_udp.c) opens or joins a test, anything else is left.
 */
struct bp_addr;
struct bp_udp_datagram;
void srv_iperf2_udp_datagram(struct srv *s, int listen_fd, const struct bp_addr *from,
			     const struct bp_udp_datagram *d);
/*
 * A stream of the session that receives is being added (stream_half.c): with a TCP
 * --trip-times test, so gets the reader of its connection's write times
 * (server_iperf2_trip.c); otherwise, and for a session that is no iperf 2 test, nothing.
 */
struct bp_stream_opts;
void srv_iperf2_inspect(struct srv_session *ss, struct bp_stream_opts *so);
/* The session's streams are all in and it started at now (server_session.c calls it). */
void srv_iperf2_started(struct srv_session *ss, uint64_t now);
/* The session closes: its watches and state go (nothing for other sessions). */
void srv_iperf2_free(struct srv_session *ss);

#endif
