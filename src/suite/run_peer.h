/*
 * `run --peer HOST`: whether the peer's `boardperf serve` answers before the suite's network
 * steps start, so that an unreachable peer costs one short wait and one line naming it
 * rather than every step's own connect timeout.
 */
#ifndef BP_SUITE_RUN_PEER_H
#define BP_SUITE_RUN_PEER_H

#include <stddef.h>

/* Seconds the probe waits for the peer's TCP handshake: a serve on a live path answers in ms. */
#define BP_RUN_PEER_PROBE_S 3

/*
 * 0 when a TCP connection to host:port is established within BP_RUN_PEER_PROBE_S (then
 * closed at once), else a negative errno with "peer HOST:PORT: REASON".
 */
int bp_run_peer_probe(const char *host, unsigned port, char *err, size_t errlen);

#endif
