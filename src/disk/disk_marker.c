#include "disk/disk_marker.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void id_from_statx(const struct statx *sx, struct bp_disk_file_id *id)
{
	*id = (struct bp_disk_file_id){ .ino = sx->stx_ino };
	if (sx->stx_mask & STATX_BTIME) {
		id->born_known = true;
		id->born_s = sx->stx_btime.tv_sec;
		id->born_ns = sx->stx_btime.tv_nsec;
	}
}

int bp_disk_file_id_of_fd(int fd, struct bp_disk_file_id *id)
{
	struct statx sx;

	if (statx(fd, "", AT_EMPTY_PATH, STATX_INO | STATX_BTIME, &sx))
		return -errno;
	id_from_statx(&sx, id);
	return 0;
}

int bp_disk_file_seen_at(int dir_fd, const char *name, struct bp_disk_file_seen *seen)
{
	struct statx sx;

	if (statx(dir_fd, name, AT_SYMLINK_NOFOLLOW, STATX_TYPE | STATX_INO | STATX_SIZE |
		  STATX_BTIME, &sx))
		return -errno;
	*seen = (struct bp_disk_file_seen){ .regular = S_ISREG(sx.stx_mode),
					    .symlink = S_ISLNK(sx.stx_mode),
					    .folder = S_ISDIR(sx.stx_mode), .size = sx.stx_size };
	id_from_statx(&sx, &seen->id);
	return 0;
}

int bp_disk_marker_line(char *buf, size_t len, uint32_t index, const struct bp_disk_file_id *id,
			uint64_t max_size)
{
	char born[48] = "-";
	int n;

	if (id->born_known)
		snprintf(born, sizeof(born), "%" PRId64 ".%09" PRIu32, id->born_s, id->born_ns);
	n = snprintf(buf, len, "file %" PRIu32 " ino %" PRIu64 " born %s max %" PRIu64 "\n",
		     index, id->ino, born, max_size);
	return n < 0 || (size_t)n >= len ? -ENOSPC : n;
}

/* A decimal number of at most 20 digits, no sign, no leading zero: the whole of [s, end). */
static bool parse_u64(const char *s, const char *end, uint64_t *v)
{
	uint64_t x = 0;

	if (s == end || end - s > 20 || (*s == '0' && end - s > 1))
		return false;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9' || x > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return false;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	*v = x;
	return true;
}

/* The next space-separated word of [*p, end); false at the end of the line. */
static bool word(const char **p, const char *end, const char **w, const char **wend)
{
	const char *s = *p;

	if (s >= end)
		return false;
	*w = s;
	while (s < end && *s != ' ')
		s++;
	*wend = s;
	*p = s < end ? s + 1 : s;
	return *wend > *w;
}

static bool is_word(const char *w, const char *wend, const char *lit)
{
	return (size_t)(wend - w) == strlen(lit) && !memcmp(w, lit, (size_t)(wend - w));
}

/* "SEC.NSEC" (nine digits) or "-". */
static bool parse_born(const char *w, const char *wend, struct bp_disk_file_id *id)
{
	const char *dot = memchr(w, '.', (size_t)(wend - w));
	uint64_t s, ns;

	if (is_word(w, wend, "-"))
		return true;
	if (!dot || wend - dot != 10 || !parse_u64(w, dot, &s) || s > INT64_MAX)
		return false;
	/* nine digits, leading zeros allowed: parse them one by one */
	ns = 0;
	for (const char *c = dot + 1; c < wend; c++) {
		if (*c < '0' || *c > '9')
			return false;
		ns = ns * 10 + (uint64_t)(*c - '0');
	}
	id->born_known = true;
	id->born_s = (int64_t)s;
	id->born_ns = (uint32_t)ns;
	return true;
}

/* One line "file N ino I born B max S" (without its '\n'); false when malformed. */
static bool parse_line(const char *p, const char *end, uint64_t *index,
		       struct bp_disk_marker_rec *r)
{
	static const char *const keys[] = { "file", "ino", "born", "max" };
	const char *w, *wend;

	*r = (struct bp_disk_marker_rec){ .present = true };
	for (size_t k = 0; k < 4; k++) {
		if (!word(&p, end, &w, &wend) || !is_word(w, wend, keys[k]) ||
		    !word(&p, end, &w, &wend))
			return false;
		if ((k == 0 && !parse_u64(w, wend, index)) ||
		    (k == 1 && !parse_u64(w, wend, &r->id.ino)) ||
		    (k == 2 && !parse_born(w, wend, &r->id)) ||
		    (k == 3 && !parse_u64(w, wend, &r->max_size)))
			return false;
	}
	return p == end;
}

static bool same_rec(const struct bp_disk_marker_rec *a, const struct bp_disk_marker_rec *b)
{
	return a->id.ino == b->id.ino && a->id.born_known == b->id.born_known &&
	       a->id.born_s == b->id.born_s && a->id.born_ns == b->id.born_ns &&
	       a->max_size == b->max_size;
}

static int add_rec(struct bp_disk_marker *m, uint64_t index, const struct bp_disk_marker_rec *r)
{
	struct bp_disk_marker_rec *slot;

	if (index >= BP_DISK_MARKER_FILES_MAX)
		return 0;  /* no run makes it: never ours */
	if (index >= m->n) {
		uint32_t n = (uint32_t)index + 1;
		struct bp_disk_marker_rec *v = realloc(m->recs, sizeof(*v) * n);

		if (!v)
			return -ENOMEM;
		memset(v + m->n, 0, sizeof(*v) * (n - m->n));
		m->recs = v;
		m->n = n;
	}
	slot = &m->recs[index];
	if (slot->present && !same_rec(slot, r))
		slot->conflict = true;
	else if (!slot->present)
		*slot = *r;
	return 0;
}

int bp_disk_marker_parse(const char *text, size_t len, struct bp_disk_marker *m)
{
	size_t magic = strlen(BP_DISK_MARKER_MAGIC);
	const char *p = text + magic, *end = text + len;

	*m = (struct bp_disk_marker){ 0 };
	if (len < magic || memcmp(text, BP_DISK_MARKER_MAGIC, magic))
		return -EINVAL;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		struct bp_disk_marker_rec r;
		uint64_t index = 0;  /* set by parse_line; gcc -O3 for arm64 cannot tell */

		if (!nl)
			break;  /* a line cut short (a power cut while appending): no record */
		if (parse_line(p, nl, &index, &r) && add_rec(m, index, &r)) {
			bp_disk_marker_free(m);
			return -ENOMEM;
		}
		p = nl + 1;
	}
	return 0;
}

int bp_disk_marker_read(int fd, struct bp_disk_marker *m)
{
	struct stat st;
	char *text;
	size_t got = 0;
	int rc;

	*m = (struct bp_disk_marker){ 0 };
	if (fstat(fd, &st))
		return -errno;
	if ((uint64_t)st.st_size > BP_DISK_MARKER_BYTES_MAX)
		return -EFBIG;
	text = malloc((size_t)st.st_size + 1);
	if (!text)
		return -ENOMEM;
	while (got < (size_t)st.st_size) {
		ssize_t n = pread(fd, text + got, (size_t)st.st_size - got, (off_t)got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	rc = bp_disk_marker_parse(text, got, m);
	free(text);
	return rc;
}

void bp_disk_marker_free(struct bp_disk_marker *m)
{
	free(m->recs);
	*m = (struct bp_disk_marker){ 0 };
}

long bp_disk_set_index(const char *name)
{
	static const char prefix[] = "test_file.";
	const char *p = name + sizeof(prefix) - 1;
	uint64_t v;

	if (strncmp(name, prefix, sizeof(prefix) - 1) || !parse_u64(p, p + strlen(p), &v) ||
	    v >= BP_DISK_MARKER_FILES_MAX)
		return -1;
	return (long)v;
}

const char *bp_disk_file_why_not(const struct bp_disk_file_id *made, uint64_t max_size,
				 const struct bp_disk_file_seen *seen)
{
	if (seen->symlink)
		return "a symbolic link (boardperf makes none, and follows none)";
	if (!seen->regular)
		return seen->folder ? "a folder, not a file boardperf made" :
				      "not a regular file";
	if (seen->id.ino != made->ino)
		return "another file than the one boardperf made there (another inode)";
	if (made->born_known != seen->id.born_known || made->born_s != seen->id.born_s ||
	    made->born_ns != seen->id.born_ns)
		return "another file than the one boardperf made there (born at another time)";
	if (seen->size > max_size)
		return "larger than boardperf ever made it";
	return NULL;
}

const char *bp_disk_marker_why_not(const struct bp_disk_marker *m, uint32_t index,
				   const struct bp_disk_file_seen *seen)
{
	const struct bp_disk_marker_rec *r = index < m->n ? &m->recs[index] : NULL;

	if (seen->symlink || !seen->regular)
		return bp_disk_file_why_not(&(struct bp_disk_file_id){ 0 }, 0, seen);
	if (!r || !r->present)
		return "not among the files the marker records";
	if (r->conflict)
		return "the marker records it twice, differently";
	return bp_disk_file_why_not(&r->id, r->max_size, seen);
}
