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

/* Server: the UDP socket that receives hellos on the test port (non-blocking). */
int bp_udp_listen(const struct bp_addr *a, int *fd_out, char *err, size_t errlen);

/*
 * Server: read one hello from the listener. On success *fd_out is a new socket bound to the
 * same port and connected to the client (answer already sent), and cookie holds the
 * client's cookie ("" from a stock iperf3). -EAGAIN when nothing (valid) was waiting.
 */
int bp_udp_accept(int listen_fd, int buffer, int *fd_out, char cookie[BP_COOKIE_LEN],
		  char *peer, size_t peerlen);

#endif
