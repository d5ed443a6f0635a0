#include "disk/disk_stale.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/units.h"
#include "disk/disk_files.h"
#include "disk/disk_marker.h"

/*
 * The marker of a folder nobody uses, locked by us: a regular file (not followed through a
 * symlink, not a FIFO that would block), whose lock is free and which starts with our line.
 * Its descriptor, or -1 for a folder that is not (or not yet, or no longer) left behind.
 */
static int take_marker(int dir_fd)
{
	char head[sizeof(BP_DISK_MARKER_MAGIC) - 1];
	struct stat st;
	int fd = openat(dir_fd, BP_DISK_MARKER, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || flock(fd, LOCK_EX | LOCK_NB) ||
	    pread(fd, head, sizeof(head), 0) != (ssize_t)sizeof(head) ||
	    memcmp(head, BP_DISK_MARKER_MAGIC, sizeof(head))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* An entry that is not boardperf's: counted, and the first one named with the reason. */
static void note_other(struct bp_disk_stale *s, const char *name, const char *why)
{
	if (!s->others++) {
		snprintf(s->other, sizeof(s->other), "%.95s", name);
		s->why = why;
	}
}

/*
 * Walks the folder: an entry is a file the marker proves boardperf made (counted in files
 * and bytes; with unlink_them, removed right after its own check) or anything else
 * (others: left). 0, or the first failing unlink's -errno with s->message naming it.
 */
static int walk(int dir_fd, const struct bp_disk_marker *m, bool unlink_them,
		struct bp_disk_stale *s)
{
	int fd = dup(dir_fd), rc = 0;
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;

	if (!d) {
		rc = -errno;
		snprintf(s->message, sizeof(s->message), "reading %s: %s", s->path, strerror(-rc));
		if (fd >= 0)
			close(fd);
		return rc;
	}
	rewinddir(d);  /* a dup shares the offset an earlier walk left at the end */
	s->files = s->others = 0;
	s->bytes = 0;
	while ((e = readdir(d))) {
		struct bp_disk_file_seen seen;
		long index = bp_disk_set_index(e->d_name);
		const char *why;
		int src;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    !strcmp(e->d_name, BP_DISK_MARKER))
			continue;
		if (index < 0) {
			note_other(s, e->d_name, "not a name boardperf gives its files");
			continue;
		}
		src = bp_disk_file_seen_at(dir_fd, e->d_name, &seen);
		if (src == -ENOENT)
			continue;  /* gone meanwhile */
		why = src ? "cannot be examined" : bp_disk_marker_why_not(m, (uint32_t)index, &seen);
		if (why) {
			note_other(s, e->d_name, why);
			continue;
		}
		s->files++;
		s->bytes += seen.size;
		if (!unlink_them) {
			continue;
		} else if (!unlinkat(dir_fd, e->d_name, 0)) {
			s->removed++;
			s->removed_bytes += seen.size;
		} else if (!rc) {
			rc = -errno;
			snprintf(s->message, sizeof(s->message), "removing %s/%s: %s", s->path,
				 e->d_name, strerror(-rc));
		}
	}
	closedir(d);
	return rc;
}

/*
 * Removes what of a left-behind set the marker proves boardperf's, under its lock; the
 * marker and the folder go only when nothing else is left in it.
 */
static void clean_one(int parent_fd, const char *name, int dir_fd,
		      const struct bp_disk_marker *m, struct bp_disk_stale *s)
{
	char freed[32];

	s->tried = true;
	s->rc = walk(dir_fd, m, true, s);
	if (s->rc)
		return;
	if (s->others) {
		s->rc = -ENOTEMPTY;
		bp_format_bytes(freed, sizeof(freed), (double)s->removed_bytes);
		snprintf(s->message, sizeof(s->message), "%s: removed %s%u file%s boardperf made "
			 "there (%s); left %u entr%s boardperf did not make or cannot prove it made "
			 "('%s': %s), and so the folder and its marker", s->path,
			 s->removed > 1 ? "the " : "", s->removed, s->removed == 1 ? "" : "s", freed,
			 s->others, s->others == 1 ? "y" : "ies", s->other, s->why);
		return;
	}
	if (unlinkat(dir_fd, BP_DISK_MARKER, 0) || unlinkat(parent_fd, name, AT_REMOVEDIR)) {
		s->rc = -errno;
		snprintf(s->message, sizeof(s->message), "removing %s (its %u files are removed): "
			 "%s", s->path, s->removed, strerror(-s->rc));
	}
}

/* One entry of parent: 1 when it is a folder left behind (then fn has been told), else 0. */
static int visit(int parent_fd, const char *parent, const char *name, bool clean,
		 bp_disk_stale_fn fn, void *arg)
{
	struct bp_disk_stale s = { .rc = 0 };
	struct bp_disk_marker m;
	int dir_fd = openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int marker;

	if (dir_fd < 0)
		return 0;
	marker = take_marker(dir_fd);
	if (marker < 0) {
		close(dir_fd);
		return 0;
	}
	snprintf(s.path, sizeof(s.path), "%s/%s", parent, name);
	/* unreadable records (too large, out of memory) prove nothing: nothing is removed */
	if (bp_disk_marker_read(marker, &m))
		m = (struct bp_disk_marker){ 0 };
	walk(dir_fd, &m, false, &s);
	if (clean)
		clean_one(parent_fd, name, dir_fd, &m, &s);
	bp_disk_marker_free(&m);
	close(marker);  /* the lock goes with it, after the marker itself */
	close(dir_fd);
	fn(arg, &s);
	return 1;
}

int bp_disk_stale_scan(const char *parent, bool clean, bp_disk_stale_fn fn, void *arg,
		       char *err, size_t errlen)
{
	int parent_fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int fd = parent_fd >= 0 ? dup(parent_fd) : -1;
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;
	int found = 0, rc;

	if (!d) {
		rc = -errno;
		snprintf(err, errlen, "--dir '%s': cannot list it: %s", parent, strerror(-rc));
		if (fd >= 0)
			close(fd);
		if (parent_fd >= 0)
			close(parent_fd);
		return rc;
	}
	rewinddir(d);
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, BP_DISK_FOLDER_PREFIX, strlen(BP_DISK_FOLDER_PREFIX)))
			found += visit(parent_fd, parent, e->d_name, clean, fn, arg);
	closedir(d);
	close(parent_fd);
	return found;
}
