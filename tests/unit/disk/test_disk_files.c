/*
 * The file set: made in a folder of its own, filled, opened, and removed so that the
 * directory is left exactly as found; a file someone else put in our folder survives.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "disk/disk_files.h"
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
	CHECK_INT(bp_disk_files_prepare(&f, &l, true, note_progress, NULL, err, sizeof(err)), 0);
	CHECK_INT(last_done, 4 * (3 << 20));
	snprintf(path, sizeof(path), "%s/test_file.3", f.path);
	CHECK(stat(path, &st) == 0 && st.st_size == 3 << 20);
	CHECK_INT(count_entries(f.path), 4);
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
	*strrchr(path, '/') = '\0';
	CHECK(rmdir(path) == 0);
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
	test_bad_parent();
	test_space();
	test_fill();
	rmdir(base);
	return tap_done();
}
