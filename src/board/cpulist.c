#include "board/cpulist.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>

/* One "a" or "a-b" item at *s; advances past it and a following comma. */
static int next_range(const char **s, long *lo, long *hi)
{
	char *end;

	if (!isdigit((unsigned char)**s))
		return -EINVAL;
	*lo = strtol(*s, &end, 10);
	*hi = *lo;
	if (*end == '-') {
		const char *p = end + 1;

		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		*hi = strtol(p, &end, 10);
	}
	if (*hi < *lo || *hi > 65535)
		return -EINVAL;
	if (*end == ',')
		end++;
	else if (*end && !isspace((unsigned char)*end))
		return -EINVAL;
	*s = end;
	return 0;
}

/* Calls back per range; a NULL list or an empty one is malformed. */
static int walk(const char *list, int cpu, bool *found)
{
	const char *s = list;
	int count = 0;

	if (!s || !*s)
		return -EINVAL;
	while (*s && !isspace((unsigned char)*s)) {
		long lo, hi;

		if (next_range(&s, &lo, &hi) < 0)
			return -EINVAL;
		count += (int)(hi - lo + 1);
		if (cpu >= lo && cpu <= hi)
			*found = true;
	}
	return count;
}

int bp_cpulist_count(const char *list)
{
	bool found = false;

	return walk(list, -1, &found);
}

bool bp_cpulist_contains(const char *list, int cpu)
{
	bool found = false;

	return walk(list, cpu, &found) >= 0 && found;
}
