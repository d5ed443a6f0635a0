/*
 * The file set: made in a folder of its own, filled, opened, and removed so that the
 * directory is left exactly as found; a file someone else put in our folder survives. A set
 * whose run died (a child that exits without removing it, as SIGKILL would) is found by the
 * next scan, with its size, and removed with clean; a file put in place of one of ours is
 * left (the run's own removal checks who each file is too); a set in use, a folder with the name but
 * no marker and one with a stranger's marker are neither named nor touched.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "disk/disk_files.h"
#include "disk/disk_stale.h"
#include "tap.h"

/* Entries of dir other than . and .. */
static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static uint64_t last_done;

static void note_progress(void *arg, uint64_t done, uint64_t total)
{
	(void)arg;
	(void)total;
	last_done = done;
}

static void test_prepare_and_remove(const char *base)
{
	struct bp_disk_layout l = { .nfiles = 4, .block = 4096, .file_size = 3 << 20 };
	struct bp_disk_files f;
	char err[512] = "", path[PATH_MAX + 32];
	struct stat st;
	double cached;

	CHECK_INT(bp_disk_files_init(&f, base, l.nfiles, err, sizeof(err)), 0);
	CHECK(!strncmp(f.name, BP_DISK_FOLDER_PREFIX, strlen(BP_DISK_FOLDER_PREFIX)));
	CHECK_INT(count_entries(base), 1);
	CHECK_INT(count_entries(f.path), 1);  /* the marker, from the start */
	CHECK_INT(bp_disk_files_prepare(&f, &l, true, note_progress, NULL, err, sizeof(err)), 0);
	CHECK_INT(last_done, 4 * (3 << 20));
	snprintf(path, sizeof(path), "%s/test_file.3", f.path);
	CHECK(stat(path, &st) == 0 && st.st_size == 3 << 20);
	CHECK_INT(count_entries(f.path), 5);
	CHECK_INT(bp_disk_files_open(&f, false, err, sizeof(err)), 0);
	cached = bp_disk_files_cached_share(&f, l.file_size);
	CHECK(isnan(cached) || (cached >= 0 && cached <= 1));
	CHECK_INT(bp_disk_files_remove(&f, err, sizeof(err)), 0);
	CHECK_INT(count_entries(base), 0);
	/* twice is harmless */
	CHECK_INT(bp_disk_files_remove(&f, err, sizeof(err)), 0);
}

/* seqwr writes its files itself: preparation leaves them empty. */
static void test_prepare_empty(const char *base)
{
	struct bp_disk_layout l = { .nfiles = 2, .block = 4096, .file_size = 1 << 20 };
	struct bp_disk_files f;
	char err[512] = "", path[PATH_MAX + 32];
	struct stat st;

	CHECK_INT(bp_disk_files_init(&f, base, l.nfiles, err, sizeof(err)), 0);
	CHECK_INT(bp_disk_files_prepare(&f, &l, false, NULL, NULL, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/test_file.1", f.path);
	CHECK(stat(path, &st) == 0 && st.st_size == 0);
	CHECK_INT(bp_disk_files_remove(&f, err, sizeof(err)), 0);
	CHECK_INT(count_entries(base), 0);
}

/* Only what we made goes: a stranger's file keeps our folder, and is named. */
static void test_foreign_file_survives(const char *base)
{
	struct bp_disk_layout l = { .nfiles = 1, .block = 4096, .file_size = 4096 };
	struct bp_disk_files f;
	char err[512] = "", path[PATH_MAX + 32];
	int fd;

	CHECK_INT(bp_disk_files_init(&f, base, l.nfiles, err, sizeof(err)), 0);
	CHECK_INT(bp_disk_files_prepare(&f, &l, true, NULL, NULL, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/someone-elses", f.path);
	fd = open(path, O_CREAT | O_WRONLY, 0600);
	CHECK(fd >= 0);
	close(fd);
	CHECK_INT(bp_disk_files_remove(&f, err, sizeof(err)), -ENOTEMPTY);
	CHECK(strstr(err, "did not make") != NULL);
	CHECK(access(path, F_OK) == 0);
	unlink(path);
	/* the kept folder keeps its marker: the next run names it instead of forgetting it */
	snprintf(strrchr(path, '/'), sizeof(path) - strlen(f.path), "/%s", BP_DISK_MARKER);
	CHECK(access(path, F_OK) == 0);
	unlink(path);
	*strrchr(path, '/') = '\0';
	CHECK(rmdir(path) == 0);
}

/*
 * A file put in place of one of ours during the run (same name, same size) is not ours:
 * the run's own removal leaves it, and the folder, and names it.
 */
static void test_replaced_file_survives(const char *base)
{
	struct bp_disk_layout l = { .nfiles = 2, .block = 4096, .file_size = 4096 };
	struct bp_disk_files f;
	char err[512] = "", path[PATH_MAX + 32], keep[PATH_MAX + 32], buf[4096];
	int fd;

	memset(buf, 'x', sizeof(buf));
	CHECK_INT(bp_disk_files_init(&f, base, l.nfiles, err, sizeof(err)), 0);
	CHECK_INT(bp_disk_files_prepare(&f, &l, true, NULL, NULL, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/test_file.1", f.path);
	snprintf(keep, sizeof(keep), "%s/test_file.0", f.path);
	/* ext4 hands the inode number back and stamps birth times from the kernel's coarse clock
	 * (a tick of up to 10 ms): a file replaced within the tick of its creation is the same
	 * file by every fact statx gives. Someone else's file comes later than that. */
	usleep(20 * 1000);
	CHECK(unlink(path) == 0);
	fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0600);
	CHECK(fd >= 0 && write(fd, buf, sizeof(buf)) == (ssize_t)sizeof(buf));
	close(fd);
	CHECK_INT(bp_disk_files_remove(&f, err, sizeof(err)), -ENOTEMPTY);
	CHECK(strstr(err, "test_file.1") && strstr(err, "another file"));
	CHECK(access(keep, F_OK) != 0);  /* ours went */
	fd = open(path, O_RDONLY);
	CHECK(fd >= 0 && read(fd, buf, sizeof(buf)) == (ssize_t)sizeof(buf) && buf[4095] == 'x');
	close(fd);
	unlink(path);
	snprintf(strrchr(path, '/'), sizeof(path) - strlen(f.path), "/%s", BP_DISK_MARKER);
	unlink(path);
	*strrchr(path, '/') = '\0';
	CHECK(rmdir(path) == 0);
}

/* What a scan reported, for the checks. */
struct seen {
	int n;
	struct bp_disk_stale last;
};

static void note_stale(void *arg, const struct bp_disk_stale *s)
{
	struct seen *seen = arg;

	seen->n++;
	seen->last = *s;
}

/*
 * A run that dies with its set in place: a child makes the set (and, with foreign, a file of
 * its own in the folder) and exits without removing it, as SIGKILL would leave it: the
 * kernel drops the child's lock. The folder's path goes through a pipe.
 */
static int killed_run(const char *base, bool foreign, char *path, size_t len)
{
	int fds[2];
	pid_t pid;
	ssize_t n;

	if (pipe(fds))
		return -1;
	/*
	 * The child must not inherit TAP lines still in stdio's buffer: under TSan its _exit
	 * flushed them a second time, and the doubled lines broke the TAP plan.
	 */
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct bp_disk_layout l = { .nfiles = 2, .block = 4096, .file_size = 8192 };
		struct bp_disk_files f;
		char err[512], other[PATH_MAX + 32];
		int rc = bp_disk_files_init(&f, base, l.nfiles, err, sizeof(err));

		if (!rc)
			rc = bp_disk_files_prepare(&f, &l, true, NULL, NULL, err, sizeof(err));
		snprintf(other, sizeof(other), "%s/notes.txt", f.path);
		if (!rc && foreign)
			rc = close(open(other, O_CREAT | O_WRONLY, 0600));
		if (!rc && write(fds[1], f.path, strlen(f.path)) < 0)
			rc = -1;
		_exit(rc ? 1 : 0);
	}
	close(fds[1]);
	n = pid > 0 ? read(fds[0], path, len - 1) : -1;
	close(fds[0]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	path[n > 0 ? n : 0] = '\0';
	return n > 0 ? 0 : -1;
}

/* A folder with our name and a test_file.0 but not (or not really) our marker. */
static void impostor(const char *base, const char *name, const char *marker_text)
{
	char path[PATH_MAX + 64];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", base, name);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/%s/test_file.0", base, name);
	close(open(path, O_CREAT | O_WRONLY, 0600));
	if (!marker_text)
		return;
	snprintf(path, sizeof(path), "%s/%s/%s", base, name, BP_DISK_MARKER);
	fd = open(path, O_CREAT | O_WRONLY, 0600);
	if (fd >= 0 && write(fd, marker_text, strlen(marker_text)) < 0)
		printf("# writing %s: %s\n", path, strerror(errno));
	close(fd);
}

static void remove_impostor(const char *base, const char *name)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s/test_file.0", base, name);
	CHECK(unlink(path) == 0);  /* still there: nothing of it was removed */
	snprintf(path, sizeof(path), "%s/%s/%s", base, name, BP_DISK_MARKER);
	unlink(path);
	snprintf(path, sizeof(path), "%s/%s", base, name);
	CHECK(rmdir(path) == 0);
}

static void test_stale(const char *base)
{
	struct bp_disk_files live;
	struct seen seen = { 0 };
	char err[512] = "", dead[PATH_MAX + 64];

	CHECK_INT(bp_disk_files_init(&live, base, 1, err, sizeof(err)), 0);
	impostor(base, BP_DISK_FOLDER_PREFIX "nomark", NULL);
	impostor(base, BP_DISK_FOLDER_PREFIX "badmark", "my own notes\n");
	CHECK_INT(killed_run(base, false, dead, sizeof(dead)), 0);
	CHECK_INT(count_entries(base), 4);

	/* named, with its size, and kept */
	CHECK_INT(bp_disk_stale_scan(base, false, note_stale, &seen, err, sizeof(err)), 1);
	CHECK_INT(seen.n, 1);
	CHECK_STR(seen.last.path, dead);
	CHECK_INT(seen.last.bytes, 2 * 8192);
	CHECK(!seen.last.tried);
	CHECK(access(dead, F_OK) == 0);

	/* clean: that one goes, the live set and both impostors stay whole */
	seen.n = 0;
	CHECK_INT(bp_disk_stale_scan(base, true, note_stale, &seen, err, sizeof(err)), 1);
	CHECK(seen.last.tried && seen.last.rc == 0);
	CHECK(access(dead, F_OK) != 0);
	CHECK_INT(count_entries(base), 3);
	CHECK_INT(count_entries(live.path), 1);
	remove_impostor(base, BP_DISK_FOLDER_PREFIX "nomark");
	remove_impostor(base, BP_DISK_FOLDER_PREFIX "badmark");
	CHECK_INT(bp_disk_files_remove(&live, err, sizeof(err)), 0);
	CHECK_INT(count_entries(base), 0);
	CHECK(bp_disk_stale_scan("/nonexistent/boardperf", false, note_stale, &seen, err,
				 sizeof(err)) == -ENOENT);
	CHECK(strstr(err, "/nonexistent/boardperf") != NULL);
}

/* A stranger's file in a left-behind folder: it and the folder stay, named again next time. */
static void test_stale_foreign(const char *base)
{
	struct seen seen = { 0 };
	char err[512] = "", dead[PATH_MAX + 64], path[PATH_MAX + 96];

	CHECK_INT(killed_run(base, true, dead, sizeof(dead)), 0);
	CHECK_INT(bp_disk_stale_scan(base, true, note_stale, &seen, err, sizeof(err)), 1);
	CHECK_INT(seen.last.rc, -ENOTEMPTY);
	CHECK(strstr(seen.last.message, dead) && strstr(seen.last.message, "did not make"));
	CHECK_INT(count_entries(dead), 2);  /* notes.txt and the marker; the set is gone */
	snprintf(path, sizeof(path), "%s/notes.txt", dead);
	CHECK(access(path, F_OK) == 0);
	seen.n = 0;
	CHECK_INT(bp_disk_stale_scan(base, false, note_stale, &seen, err, sizeof(err)), 1);
	CHECK_INT(seen.last.bytes, 0);
	unlink(path);
	snprintf(path, sizeof(path), "%s/%s", dead, BP_DISK_MARKER);
	unlink(path);
	CHECK(rmdir(dead) == 0);
}

static void test_bad_parent(void)
{
	struct bp_disk_files f;
	char err[512] = "";

	CHECK(bp_disk_files_init(&f, "/nonexistent/boardperf", 4, err, sizeof(err)) < 0);
	CHECK(strstr(err, "/nonexistent/boardperf") != NULL);
	CHECK_INT(bp_disk_files_remove(&f, err, sizeof(err)), 0);
}

static void test_space(void)
{
	uint64_t free_bytes = 0;

	CHECK_INT(bp_disk_space_needed(2ULL << 30, 128), (2ULL << 30) + 128 * 4096 + (1 << 20));
	CHECK_INT(bp_disk_space_free("/", &free_bytes), 0);
	CHECK(free_bytes > 0);
	CHECK(bp_disk_space_free("/nonexistent/boardperf", &free_bytes) == -ENOENT);
}

static void test_fill(void)
{
	unsigned char a[37], b[37];
	int zeros = 0;

	bp_disk_fill_random(a, sizeof(a), 1);
	bp_disk_fill_random(b, sizeof(b), 1);
	CHECK(!memcmp(a, b, sizeof(a)));
	for (size_t i = 0; i < sizeof(a); i++)
		zeros += !a[i];
	CHECK(zeros < 5);
}

int main(void)
{
	char base[] = "/tmp/bp-test-disk-files.XXXXXX";

	if (!mkdtemp(base)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	test_prepare_and_remove(base);
	test_prepare_empty(base);
	test_foreign_file_survives(base);
	test_replaced_file_survives(base);
	test_stale(base);
	test_stale_foreign(base);
	test_bad_parent();
	test_space();
	test_fill();
	rmdir(base);
	return tap_done();
}
