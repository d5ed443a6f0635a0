#include "suite/run_peer.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "io/sock.h"

int bp_run_peer_probe(const char *host, unsigned port, char *err, size_t errlen)
{
	struct bp_addr a;
	char why[256] = "";
	int fd = -1, rc;

	rc = bp_resolve(host, port, BP_FAMILY_ANY, false, &a, why, sizeof(why));
	if (!rc)
		rc = bp_tcp_connect(&a, bp_now_ns() + BP_RUN_PEER_PROBE_S * 1000000000ull, NULL,
				    NULL, &fd, why, sizeof(why));
	if (fd >= 0)
		close(fd);
	if (rc)
		snprintf(err, errlen, "peer %s:%u: %s (is `boardperf serve` running there?)", host,
			 port, why[0] ? why : strerror(-rc));
	return rc;
}
