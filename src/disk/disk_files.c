#include "disk/disk_files.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "core/signals.h"

/* mincore() looks at the set through windows this big, so 32-bit boards can map them. */
#define CACHE_WINDOW ((uint64_t)64 << 20)

uint64_t bp_disk_space_needed(uint64_t total, uint32_t nfiles)
{
	return total + (uint64_t)nfiles * 4096 + (1u << 20);
}

int bp_disk_space_free(const char *dir, uint64_t *bytes)
{
	struct statvfs st;

	if (statvfs(dir, &st))
		return -errno;
	*bytes = (uint64_t)st.f_bavail * st.f_frsize;
	return 0;
}

void bp_disk_fill_random(void *buf, size_t len, uint64_t seed)
{
	unsigned char *p = buf;

	for (size_t i = 0; i < len; i += 8) {
		uint64_t v = bp_disk_random_next(&seed);

		memcpy(p + i, &v, len - i < 8 ? len - i : 8);
	}
}

static void file_name(char *buf, size_t len, uint32_t i)
{
	snprintf(buf, len, "test_file.%u", i);
}

/*
 * The marker: created empty, locked, and only then given its first line, so that a run
 * looking for folders left behind (disk_stale.c) that gets the lock before us reads no
 * line and leaves the folder alone. The lock lasts as long as the descriptor: to the end
 * of bp_disk_files_remove, or of the process however it ends.
 */
static int make_marker(struct bp_disk_files *f, char *err, size_t errlen)
{
	char text[128];
	int len = snprintf(text, sizeof(text), "%spid %ld\n", BP_DISK_MARKER_MAGIC,
			   (long)getpid());
	int rc = 0;

	f->marker_fd = openat(f->dir_fd, BP_DISK_MARKER, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC,
			      0600);
	if (f->marker_fd < 0 || flock(f->marker_fd, LOCK_EX))
		rc = -errno;
	else if (write(f->marker_fd, text, (size_t)len) != len)
		rc = errno ? -errno : -EIO;
	if (rc)
		snprintf(err, errlen, "creating %s/%s: %s", f->path, BP_DISK_MARKER,
			 strerror(-rc));
	return rc;
}

int bp_disk_files_init(struct bp_disk_files *f, const char *parent, uint32_t nfiles,
		       char *err, size_t errlen)
{
	const char *slash;
	int rc;

	*f = (struct bp_disk_files){ .parent_fd = -1, .dir_fd = -1, .marker_fd = -1,
				     .nfiles = nfiles };
	f->fds = malloc(sizeof(*f->fds) * (nfiles ? nfiles : 1));
	f->ids = calloc(nfiles ? nfiles : 1, sizeof(*f->ids));
	if (!f->fds || !f->ids) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < nfiles; i++)
		f->fds[i] = -1;
	if ((size_t)snprintf(f->path, sizeof(f->path), "%s/%sXXXXXX", parent,
			     BP_DISK_FOLDER_PREFIX) >= sizeof(f->path)) {
		snprintf(err, errlen, "--dir '%s': path too long", parent);
		return -ENAMETOOLONG;
	}
	f->parent_fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (f->parent_fd < 0 || !mkdtemp(f->path)) {
		rc = -errno;
		snprintf(err, errlen, "--dir '%s': cannot make a folder there: %s", parent,
			 strerror(-rc));
		return rc;
	}
	slash = strrchr(f->path, '/');
	snprintf(f->name, sizeof(f->name), "%s", slash + 1);
	f->dir_fd = openat(f->parent_fd, f->name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (f->dir_fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "opening %s: %s", f->path, strerror(-rc));
		return rc;
	}
	return make_marker(f, err, errlen);
}

/* Writes len bytes of buf at the end of fd, through short writes and signals. */
static int write_all(int fd, const unsigned char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR && !bp_stop_requested())
			continue;
		if (n < 0)
			return -errno;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

struct prepare_state {
	const struct bp_disk_layout *l;
	unsigned char *buf;
	uint64_t done, total;
	bp_disk_progress_fn progress;
	void *arg;
};

static int fill_file(int fd, struct prepare_state *ps)
{
	for (uint64_t left = ps->l->file_size; left; ) {
		size_t n = left < ps->l->block ? (size_t)left : ps->l->block;
		int rc;

		if (bp_stop_requested())
			return -EINTR;
		rc = write_all(fd, ps->buf, n);
		if (rc)
			return rc;
		left -= n;
		ps->done += n;
		if (ps->progress)
			ps->progress(ps->arg, ps->done, ps->total);
	}
	/* as sysbench does: the run must not pay for the preparation's writeback */
	return fsync(fd) ? -errno : 0;
}

/* Appends file i's line to the marker: what a later --clean checks before removing it. */
static int record(struct bp_disk_files *f, uint32_t i)
{
	char line[160];
	int n = bp_disk_marker_line(line, sizeof(line), i, &f->ids[i], f->max_size);

	if (n < 0)
		return n;
	if (write(f->marker_fd, line, (size_t)n) != n)
		return errno ? -errno : -EIO;
	return 0;
}

static int prepare_one(struct bp_disk_files *f, uint32_t i, bool fill, struct prepare_state *ps,
		       char *err, size_t errlen)
{
	char name[32];
	int fd, rc = 0;

	file_name(name, sizeof(name), i);
	fd = openat(f->dir_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "creating %s/%s: %s", f->path, name, strerror(-rc));
		return rc;
	}
	/* ours only once we know who it is: a file we cannot name again is never removed */
	rc = bp_disk_file_id_of_fd(fd, &f->ids[i]);
	if (!rc) {
		f->created = i + 1;
		rc = record(f, i);
	}
	if (rc) {
		close(fd);
		snprintf(err, errlen, "recording %s/%s in %s: %s", f->path, name, BP_DISK_MARKER,
			 strerror(-rc));
		return rc;
	}
	if (fill)
		rc = fill_file(fd, ps);
	if (close(fd) && !rc)
		rc = -errno;
	if (rc == -EINTR)
		snprintf(err, errlen, "stopped by signal %d while preparing the files",
			 bp_stop_signal());
	else if (rc)
		snprintf(err, errlen, "writing %s/%s: %s", f->path, name, strerror(-rc));
	return rc;
}

int bp_disk_files_prepare(struct bp_disk_files *f, const struct bp_disk_layout *l, bool fill,
			  bp_disk_progress_fn progress, void *arg, char *err, size_t errlen)
{
	struct prepare_state ps = { .l = l, .total = fill ? bp_disk_total_bytes(l) : 0,
				    .progress = progress, .arg = arg };
	int rc = 0;

	f->max_size = l->file_size;
	if (fill) {
		ps.buf = malloc(l->block);
		if (!ps.buf) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		bp_disk_fill_random(ps.buf, l->block, 0x5eed);
	}
	for (uint32_t i = 0; i < l->nfiles && !rc; i++)
		rc = prepare_one(f, i, fill, &ps, err, errlen);
	free(ps.buf);
	return rc;
}

int bp_disk_files_fd_room(uint32_t nfiles, char *err, size_t errlen)
{
	rlim_t need = (rlim_t)nfiles + 64;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= need)
		return 0;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need) {
		snprintf(err, errlen, "--files %u: more than the %llu files this process may open "
			 "(ulimit -n); expected at most %llu", nfiles,
			 (unsigned long long)rl.rlim_max, (unsigned long long)(rl.rlim_max - 64));
		return -EMFILE;
	}
	rl.rlim_cur = need;
	return setrlimit(RLIMIT_NOFILE, &rl) ? -errno : 0;
}

int bp_disk_files_open(struct bp_disk_files *f, bool direct, char *err, size_t errlen)
{
	int flags = O_RDWR | O_CLOEXEC | (direct ? O_DIRECT : 0);
	int room = bp_disk_files_fd_room(f->created, err, errlen);

	if (room)
		return room;

	for (uint32_t i = 0; i < f->created; i++) {
		char name[32];
		int rc;

		file_name(name, sizeof(name), i);
		f->fds[i] = openat(f->dir_fd, name, flags);
		/*
		 * O_DIRECT means the device: drop what preparing left in the page cache, as a
		 * set sysbench prepares with --file-extra-flags=direct never enters it and fio
		 * invalidates before it starts. Else each direct write would also evict pages.
		 */
		if (f->fds[i] >= 0 && direct)
			posix_fadvise(f->fds[i], 0, 0, POSIX_FADV_DONTNEED);
		if (f->fds[i] >= 0)
			continue;
		rc = -errno;
		if (direct && rc == -EINVAL)
			snprintf(err, errlen, "--direct: the filesystem at %s does not support "
				 "O_DIRECT", f->path);
		else
			snprintf(err, errlen, "opening %s/%s: %s", f->path, name, strerror(-rc));
		return rc;
	}
	return 0;
}

/* Resident pages of [off, off+len) of fd, added to *resident; -errno when unmappable. */
static int count_resident(int fd, uint64_t off, uint64_t len, long page, uint64_t *resident)
{
	size_t pages = (size_t)((len + (uint64_t)page - 1) / (uint64_t)page);
	unsigned char *vec = malloc(pages ? pages : 1);
	void *map;
	int rc = 0;

	if (!vec)
		return -ENOMEM;
	map = mmap(NULL, (size_t)len, PROT_READ, MAP_SHARED, fd, (off_t)off);
	if (map == MAP_FAILED) {
		rc = -errno;
	} else {
		if (mincore(map, (size_t)len, vec))
			rc = -errno;
		for (size_t i = 0; !rc && i < pages; i++)
			*resident += vec[i] & 1;
		munmap(map, (size_t)len);
	}
	free(vec);
	return rc;
}

double bp_disk_files_cached_share(const struct bp_disk_files *f, uint64_t file_size)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t resident = 0, pages = 0;

	if (page <= 0 || !file_size || !f->created)
		return NAN;
	for (uint32_t i = 0; i < f->created; i++) {
		for (uint64_t off = 0; off < file_size; off += CACHE_WINDOW) {
			uint64_t len = file_size - off < CACHE_WINDOW ? file_size - off : CACHE_WINDOW;

			if (f->fds[i] < 0 || count_resident(f->fds[i], off, len, page, &resident))
				return NAN;
			pages += (len + (uint64_t)page - 1) / (uint64_t)page;
		}
	}
	return pages ? (double)resident / (double)pages : NAN;
}

static void close_all(struct bp_disk_files *f)
{
	for (uint32_t i = 0; f->fds && i < f->nfiles; i++) {
		if (f->fds[i] >= 0)
			close(f->fds[i]);
		f->fds[i] = -1;
	}
}

/* Does dir hold anything besides the marker? Unknown counts as yes: keep the marker. */
static bool holds_more_than_marker(int dir_fd)
{
	int fd = dup(dir_fd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;
	bool more = false;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return true;
	}
	rewinddir(d);  /* a dup shares the directory offset with dir_fd */
	while (!more && (e = readdir(d)))
		more = strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
		       strcmp(e->d_name, BP_DISK_MARKER);
	closedir(d);
	return more;
}

/* The marker goes only with the folder: a kept folder stays named as boardperf's. */
static void remove_marker(struct bp_disk_files *f)
{
	if (f->marker_fd < 0)
		return;
	if (f->dir_fd >= 0 && !holds_more_than_marker(f->dir_fd))
		unlinkat(f->dir_fd, BP_DISK_MARKER, 0);
	close(f->marker_fd);
	f->marker_fd = -1;
}

int bp_disk_files_remove(struct bp_disk_files *f, char *err, size_t errlen)
{
	int rc = 0;

	close_all(f);
	for (uint32_t i = f->dir_fd >= 0 ? f->created : 0; i-- > 0; ) {
		struct bp_disk_file_seen seen;
		const char *why;
		char name[32];
		int src;

		file_name(name, sizeof(name), i);
		src = bp_disk_file_seen_at(f->dir_fd, name, &seen);
		if (src == -ENOENT)
			continue;
		why = src ? strerror(-src) : bp_disk_file_why_not(&f->ids[i], f->max_size, &seen);
		if (why) {
			/* someone put another file in its place: theirs stays, and so the folder */
			if (!rc) {
				rc = -ENOTEMPTY;
				snprintf(err, errlen, "removing %s: left %s, %s, and so the folder",
					 f->path, name, why);
			}
		} else if (unlinkat(f->dir_fd, name, 0) && errno != ENOENT && !rc) {
			rc = -errno;
			snprintf(err, errlen, "removing %s/%s: %s", f->path, name, strerror(-rc));
		}
	}
	f->created = 0;
	remove_marker(f);
	if (f->dir_fd >= 0)
		close(f->dir_fd);
	f->dir_fd = -1;
	if (f->name[0] && f->parent_fd >= 0) {
		if (unlinkat(f->parent_fd, f->name, AT_REMOVEDIR) && !rc) {
			rc = -errno;
			snprintf(err, errlen, "removing %s: %s%s", f->path, strerror(-rc),
				 rc == -ENOTEMPTY ? " (it holds files boardperf did not make; "
				 "left as it is)" : "");
		}
		f->name[0] = '\0';
	}
	if (f->parent_fd >= 0)
		close(f->parent_fd);
	f->parent_fd = -1;
	free(f->fds);
	f->fds = NULL;
	free(f->ids);
	f->ids = NULL;
	return rc;
}
