/*
 * The server's UDP listener: greetings ("hellos") that open UDP data streams, for udp,
 * rfc2544 trials and rr --udp. A stream is answered only when the hello comes from the
 * address of its test's control connection (and, from a boardperf client, carries the
 * test's cookie); any other hello is dropped without an answer, since its source address
 * may be forged and answering it would send the test's data to a third party.
 */
#ifndef BP_SERVER_SERVER_UDP_H
#define BP_SERVER_SERVER_UDP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "io/loop.h"
#include "io/sock.h"

struct srv;

/* Dropped hellos, logged on one line per period rather than one per datagram. */
struct srv_udp_drops {
	uint64_t total;              /* since the server started */
	uint64_t wrong_addr, no_test; /* in the current period, by reason */
	char last[200];              /* the latest drop (a peer of 64, a reason of 128), for the line */
	bool open;                   /* a period is running: its first drop was logged */
	struct bp_timer flush;       /* the period's end */
};

/* Bind the UDP listener on a (the TCP listener's address and port) and add it to the loop. */
int srv_udp_open(struct srv *s, const struct bp_addr *a, char *err, size_t errlen);
/* Log what the current period dropped, stop its timer, close the listener. */
void srv_udp_close(struct srv *s);

#endif
