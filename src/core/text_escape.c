#include "core/text_escape.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * The length of the well-formed UTF-8 character at p (at most n bytes), or 0 when the
 * byte at p starts none (RFC 3629's table: no overlong forms, no surrogates, nothing past
 * U+10FFFF). An ASCII byte counts as a character of 1.
 */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t need;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		need = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		need = 3;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		need = 4;
	else
		return 0;
	/* The second byte's range is narrower after these leads. */
	if (p[0] == 0xe0)
		lo = 0xa0;
	else if (p[0] == 0xed)
		hi = 0x9f;
	else if (p[0] == 0xf0)
		lo = 0x90;
	else if (p[0] == 0xf4)
		hi = 0x8f;
	if (n < need || p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < need; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return need;
}

/* A well-formed character of len bytes at p that a viewer would obey rather than show. */
static bool control(const unsigned char *p, size_t len, unsigned flags)
{
	uint32_t cp;

	if (len == 1)
		return (p[0] < 0x20 || p[0] == 0x7f) &&
		       !((flags & BP_ESC_KEEP_LINES) && (p[0] == '\n' || p[0] == '\t'));
	if (len == 2)
		return p[0] == 0xc2 && p[1] <= 0x9f;  /* C1: U+0080-U+009F */
	if (len != 3 || p[0] != 0xe2)
		return false;
	cp = (uint32_t)(p[0] & 0x0f) << 12 | (uint32_t)(p[1] & 0x3f) << 6 | (p[2] & 0x3f);
	return (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

size_t bp_text_escape(char *out, size_t cap, const char *in, size_t len, unsigned flags)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *p = (const unsigned char *)in;
	size_t o = 0, i = 0;

	if (!cap)
		return 0;
	while (i < len) {
		size_t n = utf8_len(p + i, len - i);
		bool esc = !n || control(p + i, n, flags);
		size_t bytes = n ? n : 1, need = esc ? 4 * bytes : bytes;

		if (o + need >= cap)
			break;
		for (size_t k = 0; k < bytes; k++) {
			if (esc) {
				out[o++] = '\\';
				out[o++] = 'x';
				out[o++] = hex[p[i + k] >> 4];
				out[o++] = hex[p[i + k] & 0x0f];
			} else {
				out[o++] = (char)p[i + k];
			}
		}
		i += bytes;
	}
	out[o] = '\0';
	return o;
}

const char *bp_esc(char *out, size_t cap, const char *s)
{
	bp_text_escape(out, cap, s ? s : "", s ? strlen(s) : 0, 0);
	return out;
}

void bp_html_escape(FILE *out, const char *s)
{
	size_t n = s ? strlen(s) : 0;
	char small[1024], *e = 4 * n < sizeof(small) ? small : malloc(4 * n + 1);

	if (!e) {
		fputs("(out of memory)", out);
		return;
	}
	bp_text_escape(e, 4 * n < sizeof(small) ? sizeof(small) : 4 * n + 1, s ? s : "", n, 0);
	for (const char *p = e; *p; p++) {
		switch (*p) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&#39;", out); break;
		default: fputc(*p, out);
		}
	}
	if (e != small)
		free(e);
}
