/*
 * Whether a locked server lets a test in. A server may be locked by several methods at
 * once; a test is let in when any configured method accepts it, and a server with none
 * configured lets everyone in. Each method is a row of the table in server_auth.c.
 */
#ifndef BP_SERVER_SERVER_AUTH_H
#define BP_SERVER_SERVER_AUTH_H

#include <stdbool.h>

struct srv_session;

/*
 * True when the session's test may go on (its parameters are in ss->np). False: the
 * session was refused with iperf3's "test authorization failed" (so a stock iperf3 prints
 * its own line), and the log says which method refused and why.
 */
bool srv_auth_ok(struct srv_session *ss);

#endif
