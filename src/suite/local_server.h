/*
 * A `boardperf serve` inside this process, on a loopback port the kernel picks, for suites
 * that test the network stack of this very machine (`boardperf run`).
 */
#ifndef BP_SUITE_LOCAL_SERVER_H
#define BP_SUITE_LOCAL_SERVER_H

#include <stddef.h>

struct bp_local_server;

/* Listening on 127.0.0.1 when it returns; NULL with a message otherwise. */
struct bp_local_server *bp_local_server_start(char *err, size_t errlen);
unsigned bp_local_server_port(const struct bp_local_server *ls);
/* Stop it (whatever it is doing) and free it. */
void bp_local_server_stop(struct bp_local_server *ls);

#endif
