#include "board/kmsg.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>


/* The highest syslog priority: facility 127, level 7 */
#define PRIO_MAX 1023
/* Records one drain reads at most: a driver logging in a loop cannot hold the test's end */
#define DRAIN_MAX 100000

/* A decimal number between p and end, at least one digit; p moves past it. */
static int number(const char **p, const char *end, uint64_t *v)
{
	const char *start = *p;
	uint64_t x = 0;

	for (; *p < end && **p >= '0' && **p <= '9'; (*p)++) {
		if (x > (UINT64_MAX - 9) / 10)
			return -EPROTO;
		x = x * 10 + (uint64_t)(**p - '0');
	}
	if (*p == start)
		return -EPROTO;
	*v = x;
	return 0;
}

int bp_kmsg_parse(const char *rec, size_t len, struct bp_kmsg_record *out)
{
	const char *semi = memchr(rec, ';', len), *p = rec, *text, *end;
	uint64_t prio;
	size_t n;

	if (!semi)
		return -EPROTO;
	/* priority, sequence and time, comma-separated; the flags and anything newer follow */
	if (number(&p, semi, &prio) || prio > PRIO_MAX || p >= semi || *p++ != ',' ||
	    number(&p, semi, &out->seq) || p >= semi || *p++ != ',' ||
	    number(&p, semi, &out->usec) || (p < semi && *p != ','))
		return -EPROTO;
	out->level = (int)(prio & 7);
	out->kernel = (prio >> 3) == 0;
	text = semi + 1;
	end = memchr(text, '\n', len - (size_t)(text - rec));
	n = (size_t)((end ? end : rec + len) - text);
	if (memchr(text, '\0', n))
		n = strlen(text);
	if (n < sizeof(out->text)) {
		memcpy(out->text, text, n);
		out->text[n] = '\0';
	} else {
		n = sizeof(out->text) - 4;
		memcpy(out->text, text, n);
		memcpy(out->text + n, "...", 4);
	}
	return 0;
}

void bp_kmsg_open(struct bp_kmsg *k, const char *path)
{
	memset(k, 0, sizeof(*k));
	k->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (k->fd < 0) {
		k->open_errno = errno;
		return;
	}
	/* only what comes from now on */
	if (lseek(k->fd, 0, SEEK_END) < 0) {
		k->open_errno = errno;
		close(k->fd);
		k->fd = -1;
	}
}

void bp_kmsg_drain(struct bp_kmsg *k)
{
	/* a record with its dictionary fits in 8 KiB (the kernel's CONSOLE_EXT_LOG_MAX) */
	char buf[8192];
	struct bp_kmsg_record rec;

	for (int i = 0; k->fd >= 0 && i < DRAIN_MAX; i++) {
		ssize_t n = read(k->fd, buf, sizeof(buf));

		if (n < 0 && errno == EPIPE) {
			k->lost++;	/* overwritten before it was read; the next one follows */
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;	/* EAGAIN: nothing more now */
		if (bp_kmsg_parse(buf, (size_t)n, &rec) || rec.level > BP_KMSG_WORST_KEPT)
			continue;
		if (k->n < BP_KMSG_KEEP)
			k->kept[k->n++] = rec;
		else
			k->more++;
	}
}

void bp_kmsg_close(struct bp_kmsg *k)
{
	if (k->fd >= 0)
		close(k->fd);
	k->fd = -1;
}

const char *bp_kmsg_level_name(int level)
{
	static const char *const names[] = { "emerg", "alert", "crit", "err", "warning",
					     "notice", "info", "debug" };

	return level >= 0 && level < 8 ? names[level] : NULL;
}

static bool word_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-';
}

bool bp_kmsg_names_any(const char *text, const char *const *names)
{
	for (size_t i = 0; names && names[i]; i++) {
		size_t len = strlen(names[i]);

		if (!len)
			continue;
		for (const char *p = strstr(text, names[i]); p; p = strstr(p + 1, names[i]))
			if ((p == text || !word_char(p[-1])) && !word_char(p[len]))
				return true;
	}
	return false;
}

json_t *bp_kmsg_json(const struct bp_kmsg *k, const char *const *names)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < k->n; i++) {
		const struct bp_kmsg_record *r = &k->kept[i];

		json_array_append_new(a, json_pack("{s:s, s:b, s:f, s:s, s:b}",
						   "level", bp_kmsg_level_name(r->level),
						   "kernel", r->kernel, "at_s",
						   (double)r->usec / 1e6, "text", r->text,
						   "on_path", bp_kmsg_names_any(r->text, names)));
	}
	return a;
}
