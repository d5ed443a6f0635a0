#include "disk/disk_stale.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "disk/disk_files.h"

/* test_file.N, the names of a set's files (sysbench's); nothing else of a folder is ours. */
static bool is_set_file(const char *name)
{
	static const char prefix[] = "test_file.";
	const char *p = name + sizeof(prefix) - 1;

	if (strncmp(name, prefix, sizeof(prefix) - 1) || !*p)
		return false;
	for (; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

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

/*
 * Walks the folder: adds up the set's regular files into s->bytes, or with unlink removes
 * them, noting the first failure; *others counts what is not the set's nor the marker.
 */
static int walk(int dir_fd, bool unlink_them, struct bp_disk_stale *s, int *others)
{
	int fd = dup(dir_fd), rc = 0;
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;
	struct stat st;

	if (!d) {
		rc = -errno;
		if (fd >= 0)
			close(fd);
		return rc;
	}
	rewinddir(d);  /* a dup shares the offset an earlier walk left at the end */
	*others = 0;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    !strcmp(e->d_name, BP_DISK_MARKER))
			continue;
		if (!is_set_file(e->d_name) ||
		    fstatat(dir_fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode)) {
			(*others)++;
			continue;
		}
		if (!unlink_them)
			s->bytes += (uint64_t)st.st_size;
		else if (unlinkat(dir_fd, e->d_name, 0) && !rc)
			rc = -errno;
	}
	closedir(d);
	return rc;
}

/* Removes a left-behind set under its marker's lock; the folder goes only when empty. */
static void clean_one(int parent_fd, const char *name, int dir_fd, struct bp_disk_stale *s)
{
	int others = 0;

	s->tried = true;
	s->rc = walk(dir_fd, true, s, &others);
	if (!s->rc && others)
		s->rc = -ENOTEMPTY;
	if (!s->rc && unlinkat(dir_fd, BP_DISK_MARKER, 0))
		s->rc = -errno;
	if (!s->rc && unlinkat(parent_fd, name, AT_REMOVEDIR))
		s->rc = -errno;
	if (s->rc == -ENOTEMPTY)
		snprintf(s->message, sizeof(s->message), "removing %s: it holds files boardperf "
			 "did not make; left as it is", s->path);
	else if (s->rc)
		snprintf(s->message, sizeof(s->message), "removing %s: %s", s->path,
			 strerror(-s->rc));
}

/* One entry of parent: 1 when it is a folder left behind (then fn has been told), else 0. */
static int visit(int parent_fd, const char *parent, const char *name, bool clean,
		 bp_disk_stale_fn fn, void *arg)
{
	struct bp_disk_stale s = { .rc = 0 };
	int dir_fd = openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int marker, others;

	if (dir_fd < 0)
		return 0;
	marker = take_marker(dir_fd);
	if (marker < 0) {
		close(dir_fd);
		return 0;
	}
	snprintf(s.path, sizeof(s.path), "%s/%s", parent, name);
	walk(dir_fd, false, &s, &others);
	if (clean)
		clean_one(parent_fd, name, dir_fd, &s);
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
