#include "io/addr_host.h"

#include <string.h>

/* The host part of a: 4 bytes for IPv4 (also v4-mapped IPv6), 16 for IPv6; 0 for neither. */
static size_t host_bytes(const struct bp_addr *a, unsigned char out[16], uint32_t *scope)
{
	*scope = 0;
	if (a->ss.ss_family == AF_INET && a->len >= sizeof(struct sockaddr_in)) {
		memcpy(out, &((const struct sockaddr_in *)&a->ss)->sin_addr, 4);
		return 4;
	}
	if (a->ss.ss_family == AF_INET6 && a->len >= sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)&a->ss;

		if (IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr)) {
			memcpy(out, &s6->sin6_addr.s6_addr[12], 4);
			return 4;
		}
		/* A link-local address is only unique on its link. */
		if (IN6_IS_ADDR_LINKLOCAL(&s6->sin6_addr))
			*scope = s6->sin6_scope_id;
		memcpy(out, &s6->sin6_addr, 16);
		return 16;
	}
	return 0;
}

bool bp_addr_same_host(const struct bp_addr *a, const struct bp_addr *b)
{
	unsigned char ha[16], hb[16];
	uint32_t sa, sb;
	size_t na = host_bytes(a, ha, &sa), nb = host_bytes(b, hb, &sb);

	return na && na == nb && sa == sb && !memcmp(ha, hb, na);
}
