/* A latency histogram in a result document, and back: see latency_histogram.h. */
#include "result/latency_histogram.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

json_t *bp_latency_histogram_json(const struct bp_histo *h)
{
	uint64_t low, high, n;
	unsigned it = 0;
	const char *sep = "";
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	json_t *o = NULL;

	if (!h || !bp_histo_count(h))
		return NULL;
	f = open_memstream(&text, &len);
	if (!f)
		return NULL;
	while ((n = bp_histo_next_bucket(h, &it, &low, &high))) {
		fprintf(f, "%s%llu:%llu", sep, (unsigned long long)low, (unsigned long long)n);
		sep = " ";
	}
	if (!fclose(f) && text)
		o = json_pack("{s:s}", "buckets", text);
	free(text);
	return o;
}

__attribute__((format(printf, 4, 5)))
static struct bp_histo *refuse(struct bp_histo *h, char *err, size_t errlen, const char *fmt,
			       ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	bp_histo_free(h);
	return NULL;
}

/*
 * A decimal whole number of 1 to 18 digits (below 10^18: 31 years of ns, a count no test
 * reaches) at *p, which moves past it; -1 for anything else.
 */
static int whole(const char **p, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	size_t n = 0;

	while (s[n] >= '0' && s[n] <= '9' && n < 19)
		v = v * 10 + (uint64_t)(s[n++] - '0');
	if (n == 0 || n > 18)
		return -1;
	*out = v;
	*p = s + n;
	return 0;
}

/* The summary's min or max as a whole number of the unit (what the histogram recorded). */
static int extreme(double v, uint64_t *out)
{
	if (!isfinite(v) || v < 0 || v >= 1e18 || v != floor(v))
		return -1;
	*out = (uint64_t)v;
	return 0;
}

struct bp_histo *bp_latency_histogram_load(const struct bp_latency *l, char *err,
					   size_t errlen)
{
	const json_t *buckets = json_is_object(l->histogram) ?
				json_object_get(l->histogram, "buckets") : NULL;
	const char *p = json_string_value(buckets);
	struct bp_histo *h;
	uint64_t total = 0, prev = 0, min, max, first = 0, last = 0;

	if (!p || !*p)
		return refuse(NULL, err, errlen, "histogram.buckets: expected a non-empty string of "
			      "LOW:COUNT pairs");
	if (extreme(l->min, &min) || extreme(l->max, &max) || min > max)
		return refuse(NULL, err, errlen, "min %g and max %g: expected whole numbers, "
			      "min <= max", l->min, l->max);
	h = bp_histo_new();
	if (!h)
		return refuse(NULL, err, errlen, "out of memory");
	for (size_t i = 0; *p; i++) {
		uint64_t low, n;

		if ((i && *p++ != ' ') || whole(&p, &low) || *p++ != ':' || whole(&p, &n) || !n ||
		    (*p && *p != ' '))
			return refuse(h, err, errlen, "histogram.buckets, pair %zu: expected LOW:COUNT, "
				      "whole numbers, COUNT above 0, one blank between pairs", i + 1);
		if (bp_histo_bucket_low(low) != low)
			return refuse(h, err, errlen, "histogram.buckets, pair %zu: %llu is not the "
				      "low end of a bucket", i + 1, (unsigned long long)low);
		if (i && low <= prev)
			return refuse(h, err, errlen, "histogram.buckets, pair %zu: %llu after %llu: "
				      "expected increasing lows", i + 1, (unsigned long long)low,
				      (unsigned long long)prev);
		if (n > UINT64_MAX - total)
			return refuse(h, err, errlen, "histogram.buckets, pair %zu: the counts "
				      "overflow", i + 1);
		total += n;
		first = i ? first : low;
		last = prev = low;
		bp_histo_record_n(h, low, n);
	}
	if (total != l->count)
		return refuse(h, err, errlen, "histogram: the buckets hold %llu values, the "
			      "summary counts %llu", (unsigned long long)total,
			      (unsigned long long)l->count);
	if (bp_histo_bucket_low(min) != first || bp_histo_bucket_low(max) != last)
		return refuse(h, err, errlen, "histogram: min %llu and max %llu are not in the "
			      "first and last buckets (%llu, %llu)", (unsigned long long)min,
			      (unsigned long long)max, (unsigned long long)first,
			      (unsigned long long)last);
	bp_histo_set_extremes(h, min, max);
	return h;
}
