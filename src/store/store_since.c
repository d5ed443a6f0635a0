/* --since for history and export: a date, a time, or an age. */
#include "store/store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int parse_age(const char *text, int64_t now, int64_t *out)
{
	static const struct { char unit; int64_t s; } units[] = {
		{ 's', 1 }, { 'm', 60 }, { 'h', 3600 }, { 'd', 86400 }, { 'w', 604800 },
	};
	char *end;
	unsigned long long n;

	if (text[0] < '0' || text[0] > '9')
		return -EINVAL;
	errno = 0;
	n = strtoull(text, &end, 10);
	if (errno || end == text || !end[0] || end[1] || n > 100ull * 365 * 86400)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (units[i].unit == end[0]) {
			*out = now - (int64_t)n * units[i].s;
			return 0;
		}
	}
	return -EINVAL;
}

static int parse_utc(const char *text, const char *fmt, int64_t *out)
{
	struct tm tm;
	const char *end;

	memset(&tm, 0, sizeof(tm));
	end = strptime(text, fmt, &tm);
	if (!end || *end)
		return -EINVAL;
	*out = (int64_t)timegm(&tm);
	return 0;
}

int bp_store_parse_since(const char *text, int64_t now, int64_t *unix_out, char *err,
			 size_t errlen)
{
	if (!parse_utc(text, "%Y-%m-%dT%H:%M:%SZ", unix_out) ||
	    !parse_utc(text, "%Y-%m-%d", unix_out) || !parse_age(text, now, unix_out))
		return 0;
	snprintf(err, errlen, "--since '%s': expected a UTC date (2026-11-30), a time "
		 "(2026-11-30T12:00:00Z) or an age (90m, 36h, 7d, 2w)", text);
	return -EINVAL;
}
