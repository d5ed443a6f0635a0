/*
 * The warning `loopback`: a network test whose server was on this machine (loopback or one of
 * its own addresses) measured its CPUs and kernel, not a network. Said by every network
 * client's report, so that `tcp -c 127.0.0.1` reads as `run`'s loopback steps do.
 */
#ifndef BP_RESULT_RESULT_THIS_HOST_H
#define BP_RESULT_RESULT_THIS_HOST_H

#include "result/result.h"

/* server: the address the client reached ("127.0.0.1:5201"). Returns 0 or -ENOMEM. */
int bp_result_warn_this_host(struct bp_result *r, const char *server);

#endif
