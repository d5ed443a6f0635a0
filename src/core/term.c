#include "core/term.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static int clamp_width(long w)
{
	if (w < BP_TERM_MIN_WIDTH)
		return BP_TERM_MIN_WIDTH;
	return w > BP_TERM_MAX_WIDTH ? BP_TERM_MAX_WIDTH : (int)w;
}

int bp_term_width(int fd)
{
	struct winsize ws;
	const char *env = getenv("COLUMNS");
	char *end;
	long w;

	if (fd >= 0 && isatty(fd) && !ioctl(fd, TIOCGWINSZ, &ws) && ws.ws_col > 0)
		return clamp_width(ws.ws_col);
	if (env && *env) {
		w = strtol(env, &end, 10);
		if (!*end && w > 0)
			return clamp_width(w);
	}
	return BP_TERM_DEFAULT_WIDTH;
}

int bp_term_width_of(FILE *out)
{
	int fd = out ? fileno(out) : -1;

	return fd >= 0 ? bp_term_width(fd) : bp_term_width(-1);
}

/* Characters (not bytes) of s[0..len): a UTF-8 continuation byte adds none. */
static int columns(const char *s, size_t len)
{
	int n = 0;

	for (size_t i = 0; i < len; i++)
		n += ((unsigned char)s[i] & 0xc0) != 0x80;
	return n;
}

int bp_term_fill(FILE *out, const char *text, int col, int indent, int width)
{
	const char *p = text;
	bool at_start = true; /* nothing of text on this line yet: no space before the word */

	while (*p) {
		size_t len;
		int w;

		if (*p == '\n') {
			fprintf(out, "\n%*s", indent, "");
			col = indent;
			at_start = true;
			p++;
			continue;
		}
		if (*p == ' ') {
			p++;
			continue;
		}
		len = strcspn(p, " \n");
		w = columns(p, len);
		if (at_start ? col > indent && col + w > width : col + 1 + w > width) {
			fprintf(out, "\n%*s", indent, "");
			col = indent;
			at_start = true;
		}
		if (!at_start) {
			fputc(' ', out);
			col++;
		}
		fwrite(p, 1, len, out);
		col += w;
		at_start = false;
		p += len;
	}
	return col;
}
