#include "core/start_at.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/signals.h"

int64_t bp_wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* n digits at s as a number, or -1 */
static int digits(const char *s, int n)
{
	int v = 0;

	for (int i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

/* ".250" and on: the fraction of a second in ns (at most nine digits kept); p moves past it */
static int64_t fraction_ns(const char **p)
{
	int64_t ns = 0, scale = 100000000;

	if (**p != '.')
		return 0;
	for ((*p)++; **p >= '0' && **p <= '9'; (*p)++) {
		ns += (**p - '0') * scale;
		scale /= 10;
	}
	return ns;
}

static int days_in_month(int y, int m)
{
	static const int d[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };

	return m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0) ? 29 : d[m - 1];
}

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian), without the C library's time zone */
static int64_t days_from_civil(int y, int m, int d)
{
	int64_t yy = y - (m <= 2), era = (yy >= 0 ? yy : yy - 399) / 400;
	int64_t yoe = yy - era * 400, mp = (m + 9) % 12;
	int64_t doy = (153 * mp + 2) / 5 + d - 1, doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;

	return era * 146097 + doe - 719468;
}

/* RFC 3339: YYYY-MM-DDTHH:MM:SS[.frac](Z|+HH:MM|-HH:MM); 't', ' ' and 'z' as its grammar allows */
static int parse_rfc3339(const char *s, int64_t *ns)
{
	int y = digits(s, 4), mo, d, h, mi, sec, oh = 0, om = 0, sign = 0;
	const char *p;
	int64_t frac;

	if (strlen(s) < 20 || y < 0 || s[4] != '-' || s[7] != '-' ||
	    (s[10] != 'T' && s[10] != 't' && s[10] != ' ') || s[13] != ':' || s[16] != ':')
		return -EINVAL;
	mo = digits(s + 5, 2), d = digits(s + 8, 2), h = digits(s + 11, 2);
	mi = digits(s + 14, 2), sec = digits(s + 17, 2);
	if (mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo) || h < 0 || h > 23 ||
	    mi < 0 || mi > 59 || sec < 0 || sec > 60)
		return -EINVAL;
	p = s + 19;
	frac = fraction_ns(&p);
	if (*p == 'Z' || *p == 'z') {
		p++;
	} else if (*p == '+' || *p == '-') {
		sign = *p == '+' ? 1 : -1;
		oh = digits(p + 1, 2), om = p[3] == ':' ? digits(p + 4, 2) : -1;
		if (oh < 0 || oh > 23 || om < 0 || om > 59)
			return -EINVAL;
		p += 6;
	} else {
		return -EINVAL;
	}
	if (*p)
		return -EINVAL;
	/* a leap second reads as the next second's start */
	*ns = ((days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec) -
	       (int64_t)sign * (oh * 3600 + om * 60)) * 1000000000LL + frac;
	return 0;
}

/* Seconds since the epoch, with a fraction: "1796600000", "1796600000.25" */
static int parse_epoch(const char *s, int64_t *ns)
{
	const char *p = s;
	int64_t v = 0;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > 100000000000LL)	/* past year 5000: no instant to wait for */
			return -EINVAL;
		v = v * 10 + (*p - '0');
	}
	*ns = v * 1000000000LL + fraction_ns(&p);
	return *p ? -EINVAL : 0;
}

int bp_start_at_parse(const char *s, int64_t now_ns, int64_t *at_ns, char *err, size_t errlen)
{
	int64_t at;

	if (parse_epoch(s, &at) && parse_rfc3339(s, &at)) {
		snprintf(err, errlen, "--start-at '%s': expected an instant as RFC 3339 "
			 "(2026-12-06T23:30:00Z, with a fraction or an offset) or seconds since "
			 "the epoch", s);
		return -EINVAL;
	}
	if (at < now_ns) {
		snprintf(err, errlen, "--start-at '%s': %.3f s in the past; expected an instant "
			 "within the next day", s, (double)(now_ns - at) / 1e9);
		return -EINVAL;
	}
	if (at - now_ns > BP_START_AT_MAX_AHEAD_NS) {
		snprintf(err, errlen, "--start-at '%s': %.0f h ahead; expected an instant within "
			 "the next day", s, (double)(at - now_ns) / 3.6e12);
		return -EINVAL;
	}
	*at_ns = at;
	return 0;
}

char *bp_start_at_format(int64_t at_ns, char *buf, size_t len)
{
	time_t t = (time_t)(at_ns / 1000000000LL);
	struct tm tm;
	char day[32];

	if (!gmtime_r(&t, &tm) || !strftime(day, sizeof(day), "%Y-%m-%dT%H:%M:%S", &tm))
		snprintf(buf, len, "?");
	else
		snprintf(buf, len, "%s.%06lldZ", day, (long long)(at_ns % 1000000000LL / 1000));
	return buf;
}

int bp_start_at_wait(int64_t at_ns)
{
	for (;;) {
		int64_t left = at_ns - bp_wall_ns();
		struct timespec ts;

		if (bp_stop_requested())
			return -EINTR;
		if (left <= 0)
			return 0;
		if (left > 100000000LL) {
			ts = (struct timespec){ 0, 100000000L };
			nanosleep(&ts, NULL);
			continue;
		}
		ts = (struct timespec){ (time_t)(at_ns / 1000000000LL), (long)(at_ns % 1000000000LL) };
		if (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL) == 0)
			return bp_stop_requested() ? -EINTR : 0;
	}
}

int bp_start_at_wait_mark(int64_t at_ns, int64_t *started_ns)
{
	int rc;

	if (!at_ns)
		return 0;
	rc = bp_start_at_wait(at_ns);
	*started_ns = bp_wall_ns();
	return rc;
}
