#include "server/metrics_request.h"

#include <string.h>
#include <strings.h>

/*
 * The head's length up to and including the last header line's LF, before the blank line
 * (bare LF accepted, as RFC 9112 allows a server); 0 while it has not come.
 */
static size_t head_len(const char *buf, size_t len)
{
	for (size_t i = 0; i + 1 < len; i++) {
		if (buf[i] != '\n')
			continue;
		if (buf[i + 1] == '\n')
			return i + 1;
		if (i + 2 < len && buf[i + 1] == '\r' && buf[i + 2] == '\n')
			return i + 1;
	}
	return 0;
}

static bool tchar(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr("!#$%&'*+-.^_`|~", c));
}

static const char *skip_ows(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

/* A q-value ("1", "0.5", "0.125", "1.000") in thousandths; -1 when it is not one. */
static int qvalue(const char *p, const char *end)
{
	int q, scale = 100;

	if (p >= end || (*p != '0' && *p != '1'))
		return -1;
	q = (*p++ - '0') * 1000;
	if (p < end && *p == '.')
		for (p++; p < end && *p >= '0' && *p <= '9' && scale; p++, scale /= 10)
			q += (*p - '0') * scale;
	return p == end && q <= 1000 ? q : -1;
}

static bool is(const char *p, const char *end, const char *word)
{
	size_t n = strlen(word);

	return (size_t)(end - p) == n && !strncasecmp(p, word, n);
}

/* One media range [p, end): the formats it names get its q if it beats theirs so far. */
static void media_range(const char *p, const char *end, int *om_q, int *text_q)
{
	const char *semi = memchr(p, ';', (size_t)(end - p));
	const char *type_end = semi ? semi : end;
	bool om = false, text = false, version_ok = true;
	int q = 1000;

	while (type_end > p && (type_end[-1] == ' ' || type_end[-1] == '\t'))
		type_end--;
	if (is(p, type_end, "application/openmetrics-text"))
		om = true;
	else if (is(p, type_end, "text/plain") || is(p, type_end, "text/*"))
		text = true;
	else if (is(p, type_end, "*/*"))
		om = text = true;
	/* Parameters: q, and a version we do not write rules the range out. */
	while (semi) {
		const char *a = skip_ows(semi + 1, end), *eq, *b;

		semi = a < end ? memchr(a, ';', (size_t)(end - a)) : NULL;
		b = semi ? semi : end;
		while (b > a && (b[-1] == ' ' || b[-1] == '\t'))
			b--;
		eq = a < b ? memchr(a, '=', (size_t)(b - a)) : NULL;
		if (!eq)
			continue;
		if (is(a, eq, "q"))
			q = qvalue(eq + 1, b);
		else if (is(a, eq, "version"))
			version_ok = om ? is(eq + 1, b, "1.0.0") || is(eq + 1, b, "0.0.1") :
				     is(eq + 1, b, "0.0.4");
	}
	if (q < 0 || !version_ok)
		return;
	if (om && q > *om_q)
		*om_q = q;
	if (text && q > *text_q)
		*text_q = q;
}

void bp_metrics_accept(const char *v, size_t len, int *om_q, int *text_q)
{
	const char *end = v + len, *p = v;

	while (p < end) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		const char *stop = comma ? comma : end;

		p = skip_ows(p, stop);
		if (p < stop)
			media_range(p, stop, om_q, text_q);
		p = comma ? comma + 1 : end;
	}
}

/* "GET /metrics?x HTTP/1.1": the status it gets; 0 when the line is not HTTP. */
static int request_line(const char *p, const char *end)
{
	const char *sp1, *sp2, *path_end;
	bool get;

	sp1 = memchr(p, ' ', (size_t)(end - p));
	if (!sp1 || sp1 == p)
		return 0;
	for (const char *c = p; c < sp1; c++)
		if (!tchar(*c))
			return 0;
	get = sp1 - p == 3 && !memcmp(p, "GET", 3);
	sp2 = memchr(sp1 + 1, ' ', (size_t)(end - sp1 - 1));
	if (!sp2 || sp2 == sp1 + 1 || !(is(sp2 + 1, end, "HTTP/1.1") || is(sp2 + 1, end, "HTTP/1.0")))
		return 0;
	for (const char *c = sp1 + 1; c < sp2; c++)
		if ((unsigned char)*c <= ' ' || *c == 0x7f)
			return 0;
	path_end = memchr(sp1 + 1, '?', (size_t)(sp2 - sp1 - 1));
	if (!path_end)
		path_end = sp2;
	if (path_end - sp1 - 1 != 8 || memcmp(sp1 + 1, "/metrics", 8))
		return 404;
	return get ? 200 : 405;
}

/* The line at p (up to its LF, within end), without its CR; *next is after the LF. */
static const char *line_end(const char *p, const char *end, const char **next)
{
	const char *lf = memchr(p, '\n', (size_t)(end - p));

	*next = lf + 1;
	return lf > p && lf[-1] == '\r' ? lf - 1 : lf;
}

/* "Name: value" lines; only Accept matters. False on a line that is not a header. */
static bool headers(const char *p, const char *end, int *om_q, int *text_q)
{
	while (p < end) {
		const char *next, *le = line_end(p, end, &next);
		const char *colon = memchr(p, ':', (size_t)(le - p));

		if (!colon || colon == p)
			return false;
		for (const char *c = p; c < colon; c++)
			if (!tchar(*c))
				return false;
		if (is(p, colon, "accept"))
			bp_metrics_accept(colon + 1, (size_t)(le - colon - 1), om_q, text_q);
		p = next;
	}
	return true;
}

bool bp_metrics_request_parse(const char *buf, size_t len, struct bp_metrics_request *r)
{
	size_t hlen = head_len(buf, len);
	const char *next, *le;
	int om_q = -1, text_q = -1;

	*r = (struct bp_metrics_request){ .status = 400, .format = BP_OM_PROMETHEUS };
	if (!hlen || hlen >= BP_METRICS_REQUEST_MAX) {
		if (!hlen && len < BP_METRICS_REQUEST_MAX)
			return false;
		r->status = 431;
		return true;
	}
	le = line_end(buf, buf + hlen, &next);
	r->status = request_line(buf, le);
	if (!r->status || !headers(next, buf + hlen, &om_q, &text_q)) {
		r->status = 400;
		return true;
	}
	if (om_q > 0 && om_q > text_q)
		r->format = BP_OM_OPENMETRICS;
	return true;
}
