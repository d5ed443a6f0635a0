#include "io/nl_attr.h"

#include <errno.h>
#include <string.h>

static int number(const void *p, size_t n, void *v, size_t size)
{
	if (n < size)
		return -EPROTO;
	memcpy(v, p, size);
	return 0;
}

int bp_nl_u8(const void *p, size_t n, uint8_t *v) { return number(p, n, v, sizeof(*v)); }
int bp_nl_u16(const void *p, size_t n, uint16_t *v) { return number(p, n, v, sizeof(*v)); }
int bp_nl_u32(const void *p, size_t n, uint32_t *v) { return number(p, n, v, sizeof(*v)); }

int bp_nl_str(const void *p, size_t n, char *dst, size_t len)
{
	const char *end = n ? memchr(p, '\0', n) : NULL;

	if (!end || (size_t)(end - (const char *)p) >= len)
		return -EPROTO;
	memcpy(dst, p, (size_t)(end - (const char *)p) + 1);
	return 0;
}

int bp_nl_error(const struct nlmsghdr *h)
{
	struct nlmsgerr e;

	if (h->nlmsg_len < NLMSG_LENGTH(sizeof(e)))
		return -EPROTO;
	memcpy(&e, (const char *)h + NLMSG_HDRLEN, sizeof(e));
	if (e.error == 0)
		return 1;
	return e.error < 0 && e.error > -4096 ? e.error : -EPROTO;
}
