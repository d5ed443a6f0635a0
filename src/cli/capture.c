#include "cli/capture.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct bp_capture {
	FILE *f;      /* what the command prints to */
	FILE *to;     /* where it goes: stdout */
	char *buf;
	size_t len, cap;
	bool lost;    /* the copy outgrew BP_CAPTURE_MAX or memory: no copy at all */
};

static void keep(struct bp_capture *c, const char *data, size_t n)
{
	size_t want = c->len + n;
	char *grown;

	if (c->lost)
		return;
	if (want > BP_CAPTURE_MAX) {
		c->lost = true;
		return;
	}
	if (want > c->cap) {
		size_t cap = c->cap ? c->cap : 4096;

		while (cap < want)
			cap *= 2;
		grown = realloc(c->buf, cap);
		if (!grown) {
			c->lost = true;
			return;
		}
		c->buf = grown;
		c->cap = cap;
	}
	memcpy(c->buf + c->len, data, n);
	c->len = want;
}

/* The write-through: the copy is kept only of what reached `to`. A flush of the capture
 * (the live sink's, after each interval line) is a flush of `to`, so a pipe still reads
 * each line as it comes. */
static ssize_t capture_write(void *cookie, const char *data, size_t n)
{
	struct bp_capture *c = cookie;
	size_t put = fwrite(data, 1, n, c->to);

	keep(c, data, put);
	if (put < n || fflush(c->to)) {
		if (!errno)
			errno = EIO;
		return -1;
	}
	return (ssize_t)n;
}

struct bp_capture *bp_capture_new(FILE *to)
{
	static const cookie_io_functions_t io = { .write = capture_write };
	struct bp_capture *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->to = to;
	c->f = fopencookie(c, "w", io);
	if (!c->f) {
		free(c);
		return NULL;
	}
	return c;
}

FILE *bp_capture_file(struct bp_capture *c)
{
	return c->f;
}

const char *bp_capture_bytes(struct bp_capture *c, size_t *len)
{
	fflush(c->f);
	*len = c->lost ? 0 : c->len;
	return c->lost ? NULL : c->buf ? c->buf : "";
}

void bp_capture_free(struct bp_capture *c)
{
	if (!c)
		return;
	fclose(c->f);
	free(c->buf);
	free(c);
}
