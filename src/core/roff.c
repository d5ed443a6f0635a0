#include "core/roff.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The code point of the UTF-8 sequence at p (*len its bytes), or -1 when p does not start a
 * valid one: a stray continuation byte, a short or overlong sequence, a surrogate, past
 * U+10FFFF.
 */
static int32_t utf8_decode(const unsigned char *p, size_t *len)
{
	static const int32_t min[] = { 0, 0, 0x80, 0x800, 0x10000 };
	unsigned char c = p[0];
	size_t n = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 0;
	int32_t cp;

	if (!n || c > 0xf4)
		return -1;
	cp = c & (0x7f >> n);
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)  /* also the string's end: '\0' is not one */
			return -1;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if (cp < min[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return -1;
	*len = n;
	return cp;
}

void bp_roff_text(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	bool line_start = true;

	while (*p) {
		unsigned char c = *p;
		size_t len = 1;
		int32_t cp;

		if (line_start && c == '.')
			fputs("\\&", out);
		line_start = c == '\n';
		switch (c) {
		case '\\': fputs("\\e", out); break;
		case '-': fputs("\\-", out); break;
		case '"': fputs("\\(dq", out); break;
		case '\'': fputs("\\(aq", out); break;
		case '`': fputs("\\(ga", out); break;
		case '\n': fputc('\n', out); break;
		default:
			if (c < 0x20 || c == 0x7f) {
				fputc(' ', out);
			} else if (c < 0x80) {
				fputc(c, out);
			} else if ((cp = utf8_decode(p, &len)) >= 0) {
				fprintf(out, "\\[u%04X]", (unsigned)cp);
			} else {
				fputc('?', out);
			}
		}
		p += len;
	}
}
