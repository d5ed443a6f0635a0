/* Usage checks several commands share; each writes a one-line message and returns -EINVAL. */
#ifndef BP_CORE_CHECKS_H
#define BP_CORE_CHECKS_H

#include <stddef.h>

#include "core/options.h"

/* path (given with flag) is an existing directory; NULL passes. */
int bp_check_dir(const char *flag, const char *path, char *err, size_t errlen);

/*
 * host (given with flag, e.g. "-c") is a host, not HOST:PORT ("127.0.0.1:6101",
 * "[::1]:6101", "name:80"): the port goes with port_flag. A bare IPv6 address has more
 * than one ':' and passes. NULL passes.
 */
int bp_check_host(const char *flag, const char *host, const char *port_flag, char *err,
		  size_t errlen);

#endif
