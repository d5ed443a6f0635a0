/*
 * Setting up a UDP data stream, as iperf3 does: the client's connected UDP socket sends a
 * 4-byte hello to the server's port, the server answers from a socket connected back to
 * the client, and both then have a private 4-tuple. boardperf's client appends its cookie
 * to the hello so that a server running several UDP tests at once knows whose stream it is.
 */
#ifndef BP_PROTO_UDP_CONNECT_H
#define BP_PROTO_UDP_CONNECT_H

#include <stddef.h>
#include <stdint.h>

#include "proto/control.h"
#include "io/sock.h"

/* Client: a UDP socket connected to a, greeted and answered before deadline_ns. */
int bp_udp_connect(const struct bp_addr *a, const char cookie[BP_COOKIE_LEN], int buffer,
		   uint64_t deadline_ns, int *fd_out, char *err, size_t errlen);

/* Client: a UDP socket connected to a, nothing sent (iperf 2's datagrams need no hello). */
int bp_udp_connect_plain(const struct bp_addr *a, int buffer, int *fd_out, char *err,
			 size_t errlen);

/* Server: the UDP socket that receives hellos on the test port (non-blocking). */
int bp_udp_listen(const struct bp_addr *a, int *fd_out, char *err, size_t errlen);

/* A datagram's first bytes as the listener read them (enough for an iperf 2 test header). */
struct bp_udp_datagram {
	uint8_t head[160];
	size_t len;             /* the whole datagram's length (head holds at most 160) */
	uint64_t arrival_ns;    /* bp_now_ns() when it was read */
};

/*
 * Server: read one datagram from the listener and tell whether it is a hello. On success
 * *from is its sender and cookie the client's cookie ("" from a stock iperf3); nothing has
 * been sent, so the caller decides whether this sender may get the stream (a hello's
 * source address can be forged: answering it unchecked reflects the test's data to
 * whoever the forger names). -EAGAIN when nothing was waiting, -EBADMSG for a datagram
 * that is not a hello (its first bytes in raw: a stock iperf 2 client's, say).
 */
int bp_udp_read_hello(int listen_fd, char cookie[BP_COOKIE_LEN], struct bp_addr *from,
		      struct bp_udp_datagram *raw);
/* Server: a socket on the listener's address and port connected to peer, nothing sent. */
int bp_udp_twin(int listen_fd, const struct bp_addr *peer, int buffer, int *fd_out);

/*
 * Server: accept the hello from peer: *fd_out is a new socket bound to the listener's
 * address and port, connected to peer, with the answer already sent. 0 or -errno.
 */
int bp_udp_answer_hello(int listen_fd, const struct bp_addr *peer, int buffer, int *fd_out);

#endif
