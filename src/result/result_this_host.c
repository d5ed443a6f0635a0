#include "result/result_this_host.h"

int bp_result_warn_this_host(struct bp_result *r, const char *server)
{
	if (bp_result_has_warning(r, "loopback"))
		return 0;
	return bp_result_add_warning(r, "loopback", "server %s is on this machine: client and "
				     "server shared its CPUs and kernel, so the figure is this "
				     "machine's, not a network's; run the client on another host",
				     server);
}
