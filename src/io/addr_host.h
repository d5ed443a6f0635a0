/*
 * Whether two socket addresses name the same host, ports aside: a test's UDP data socket
 * has a port of its own, but must come from the address its control connection came from.
 */
#ifndef BP_IO_ADDR_HOST_H
#define BP_IO_ADDR_HOST_H

#include <stdbool.h>

#include "io/sock.h"

/*
 * True when a and b hold the same IP address. An IPv4 address and its v4-mapped IPv6 form
 * (::ffff:a.b.c.d, what a dual-stack socket reports for an IPv4 peer) are the same host;
 * an IPv6 link-local address matches only on the same interface (scope id). Any other
 * family, or a length too short for its family, matches nothing.
 */
bool bp_addr_same_host(const struct bp_addr *a, const struct bp_addr *b);

#endif
