/* The test kinds this server serves: one row each, in the order a refusal lists them. */
#include "server/server_kind.h"

#include <stdio.h>

static const struct srv_kind *const kinds[] = {
	&srv_kind_tcp,
	&srv_kind_udp,
	&srv_kind_rr,
	&srv_kind_crr,
};

#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

const struct srv_kind *srv_kind_find(enum bp_net_kind kind)
{
	for (size_t i = 0; i < NKINDS; i++)
		if (kinds[i]->kind == kind)
			return kinds[i];
	return NULL;
}

void srv_kind_list(char *buf, size_t len)
{
	size_t off = 0;

	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < NKINDS && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s",
					i == 0 ? "" : i + 1 == NKINDS ? " and " : ", ",
					bp_net_kind_name(kinds[i]->kind));
}
