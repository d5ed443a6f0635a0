#include "proto/peer_json.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Enough of a value to recognise it; the rest of a megabyte string helps nobody. */
#define SHOWN_MAX 40

struct bp_peer_reader bp_peer_reader(const json_t *obj, char *err, size_t errlen)
{
	if (errlen)
		err[0] = '\0';
	return (struct bp_peer_reader){ .obj = obj, .err = err, .errlen = errlen };
}

/*
 * The value as JSON text, escaped to ASCII: the line goes to the server's log and back to
 * the peer inside a JSON string, so it must hold neither control bytes nor a UTF-8
 * sequence cut in half.
 */
static void show(const json_t *v, char *out, size_t len)
{
	char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT | JSON_ENSURE_ASCII |
			     JSON_REAL_PRECISION(15));

	if (!s) {
		snprintf(out, len, "(unprintable)");
		return;
	}
	if (strlen(s) > SHOWN_MAX)
		snprintf(out, len, "%.*s...", SHOWN_MAX, s);
	else
		snprintf(out, len, "%s", s);
	free(s);
}

static void vrefuse(struct bp_peer_reader *rd, int code, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

static void vrefuse(struct bp_peer_reader *rd, int code, const char *fmt, va_list ap)
{
	if (rd->rc)
		return;
	rd->rc = -EINVAL;
	rd->code = code;
	if (rd->errlen)
		vsnprintf(rd->err, rd->errlen, fmt, ap);
}

void bp_peer_refuse(struct bp_peer_reader *rd, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vrefuse(rd, code, fmt, ap);
	va_end(ap);
}

/* "KEY VALUE: expected WHAT", with the reader's prefix before the key. */
static void refuse_value(struct bp_peer_reader *rd, const char *key, const json_t *v,
			 int code, const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void refuse_value(struct bp_peer_reader *rd, const char *key, const json_t *v,
			 int code, const char *fmt, ...)
{
	char shown[SHOWN_MAX + 8], what[96];
	va_list ap;

	if (rd->rc)
		return;
	show(v, shown, sizeof(shown));
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	bp_peer_refuse(rd, code, "%s%s %s: expected %s", rd->where ? rd->where : "", key, shown,
		       what);
}

/* The key's value, or NULL when it is absent or null (both mean "not sent"). */
static const json_t *value_of(const struct bp_peer_reader *rd, const char *key)
{
	const json_t *v = json_object_get(rd->obj, key);

	return json_is_null(v) ? NULL : v;
}

long long bp_peer_int(struct bp_peer_reader *rd, const char *key, long long def,
		      long long lo, long long hi, int code)
{
	const json_t *v = value_of(rd, key);
	double d;

	if (rd->rc)
		return def;
	if (!v) {
		/* A default outside the range (rr --udp without its sizes) is no way around it. */
		if (def < lo || def > hi)
			bp_peer_refuse(rd, code, "%s%s missing: expected an integer in %lld..%lld",
				       rd->where ? rd->where : "", key, lo, hi);
		return def;
	}
	if (json_is_integer(v)) {
		long long x = json_integer_value(v);

		if (x >= lo && x <= hi)
			return x;
	} else if (json_is_real(v)) {
		/* cJSON (iperf3) writes a large count as 1e+16: whole, but a real to jansson.
		 * Compared as a double, so no out-of-range value is ever converted. */
		d = json_real_value(v);
		if (isfinite(d) && d == floor(d) && d >= (double)lo && d <= (double)hi)
			return (long long)d;
	}
	refuse_value(rd, key, v, code, "an integer in %lld..%lld", lo, hi);
	return def;
}

double bp_peer_real(struct bp_peer_reader *rd, const char *key, double def, double lo,
		    double hi, int code)
{
	const json_t *v = value_of(rd, key);
	double d;

	if (rd->rc || !v)
		return def;
	if (json_is_number(v)) {
		d = json_number_value(v);
		if (isfinite(d) && d >= lo && d <= hi)
			return d;
	}
	refuse_value(rd, key, v, code, "a number in %g..%g", lo, hi);
	return def;
}

bool bp_peer_flag(struct bp_peer_reader *rd, const char *key, int code)
{
	const json_t *v = value_of(rd, key);

	if (rd->rc || !v)
		return false;
	if (json_is_boolean(v))
		return json_is_true(v);
	if (json_is_integer(v) && (json_integer_value(v) == 0 || json_integer_value(v) == 1))
		return json_integer_value(v) == 1;
	if (json_is_real(v) && (json_real_value(v) == 0 || json_real_value(v) == 1))
		return json_real_value(v) == 1;
	refuse_value(rd, key, v, code, "true, false, 0 or 1");
	return false;
}

void bp_peer_str(struct bp_peer_reader *rd, const char *key, char *out, size_t len, int code)
{
	const json_t *v = value_of(rd, key);

	out[0] = '\0';
	if (rd->rc || !v)
		return;
	/* jansson keeps strings with NUL bytes; one would cut the name short unseen. */
	if (json_is_string(v) && json_string_length(v) < len &&
	    strlen(json_string_value(v)) == json_string_length(v)) {
		memcpy(out, json_string_value(v), json_string_length(v) + 1);
		return;
	}
	refuse_value(rd, key, v, code, "a string of at most %zu bytes", len - 1);
}
