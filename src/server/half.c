/* The kinds this server serves: the installed kinds (result/kind.h) that have a half. */
#include "server/half.h"

#include <stdio.h>

#include "result/kind.h"

/* The installed kind number k (1...) of those with a half; NULL past the last. */
static const struct bp_kind *served(int k)
{
	size_t n;
	const struct bp_kind *const *kinds = bp_kinds_installed(&n);
	int seen = 0;

	for (size_t i = 0; i < n; i++)
		if (kinds[i]->server_half && ++seen == k)
			return seen <= SRV_MAX_SERVED ? kinds[i] : NULL;
	return NULL;
}

const struct srv_half *srv_half_find(const char *test)
{
	const struct bp_kind *k = test ? bp_kind_find(test) : NULL;

	return k ? k->server_half : NULL;
}

int srv_half_number(const char *test)
{
	const struct bp_kind *want = test ? bp_kind_find(test) : NULL, *k;

	for (int i = 1; want && (k = served(i)); i++)
		if (k == want)
			return i;
	return 0;
}

const char *srv_half_name(int k)
{
	const struct bp_kind *d = k > 0 ? served(k) : NULL;

	return d ? d->name : NULL;
}

void srv_half_list(char *buf, size_t len)
{
	size_t off = 0;
	int n = 0;

	while (served(n + 1))
		n++;
	if (len)
		buf[0] = '\0';
	for (int i = 1; i <= n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s",
					i == 1 ? "" : i == n ? " and " : ", ", srv_half_name(i));
}
