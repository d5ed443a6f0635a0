/* The request/response kinds' halves on boardperf serve (server/half.h): rr's and crr's. */
#ifndef BP_RR_RR_HALF_H
#define BP_RR_RR_HALF_H

#include "server/half.h"

extern const struct srv_half srv_half_rr;
extern const struct srv_half srv_half_crr;

/* rr_half.c: the log line of both (rr's flows, crr's connections: transactions answered) */
void srv_rr_log(const struct srv_session *ss);

#endif
