/*
 * The marker's records of the files a run made, and the proof --clean asks of a file before
 * removing it: a line round-trips; malformed, cut-short, out-of-range and conflicting lines
 * prove nothing; a file is the one made only under its name, as a regular file, with its
 * inode, its birth time and no more than its size: another file under the name (someone's
 * test_file.7), a reused inode (another birth time), a symlink or a grown file is not.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "disk/disk_marker.h"
#include "tap.h"

static const struct bp_disk_file_id made = { .ino = 1234567, .born_known = true,
					     .born_s = 1764849600, .born_ns = 5 };

static struct bp_disk_file_seen seen_as(uint64_t ino, int64_t born_s, uint64_t size)
{
	return (struct bp_disk_file_seen){ .regular = true, .size = size,
					   .id = { .ino = ino, .born_known = true, .born_s = born_s,
						   .born_ns = 5 } };
}

static void test_line_round_trip(void)
{
	struct bp_disk_file_id none = { .ino = 9 };
	struct bp_disk_marker m;
	char text[512] = BP_DISK_MARKER_MAGIC "pid 42\n", line[160];
	int n = bp_disk_marker_line(line, sizeof(line), 7, &made, 8192);

	CHECK_STR(line, "file 7 ino 1234567 born 1764849600.000000005 max 8192\n");
	CHECK_INT(n, (int)strlen(line));
	strcat(text, line);
	CHECK(bp_disk_marker_line(line, sizeof(line), 0, &none, 4096) > 0);
	CHECK_STR(line, "file 0 ino 9 born - max 4096\n");
	strcat(text, line);
	CHECK_INT(bp_disk_marker_line(line, 10, 7, &made, 8192), -ENOSPC);
	CHECK_INT(bp_disk_marker_parse(text, strlen(text), &m), 0);
	CHECK_INT(m.n, 8);
	CHECK(m.recs[7].present && !m.recs[7].conflict && m.recs[7].id.ino == 1234567 &&
	      m.recs[7].id.born_known && m.recs[7].id.born_s == 1764849600 &&
	      m.recs[7].id.born_ns == 5 && m.recs[7].max_size == 8192);
	CHECK(m.recs[0].present && !m.recs[0].id.born_known && m.recs[0].max_size == 4096);
	CHECK(!m.recs[3].present);
	CHECK(bp_disk_marker_why_not(&m, 7, &(struct bp_disk_file_seen){
		.regular = true, .size = 8192, .id = made }) == NULL);
	CHECK(bp_disk_marker_why_not(&m, 3, &(struct bp_disk_file_seen){
		.regular = true, .size = 16, .id = made }) != NULL);  /* not recorded */
	CHECK(bp_disk_marker_why_not(&m, 100, &(struct bp_disk_file_seen){
		.regular = true, .size = 16, .id = made }) != NULL);  /* beyond the records */
	bp_disk_marker_free(&m);
}

static void test_bad_lines(void)
{
	static const char text[] = BP_DISK_MARKER_MAGIC
		"file 1 ino 5 born - max\n"              /* a word short */
		"file 2 ino 5 born 1.5 max 9\n"          /* nanoseconds not nine digits */
		"file 3 ino -5 born - max 9\n"           /* a sign */
		"file 04 ino 5 born - max 9\n"           /* a leading zero */
		"file 5 ino 5 born - max 9 extra\n"      /* a word too many */
		"file 65536 ino 5 born - max 9\n"        /* no set has that file */
		"file 6 ino 5 born - max 9\n"
		"file 6 ino 6 born - max 9\n"            /* twice, differently: trust neither */
		"file 7 ino 5 born - max 9\n"
		"file 7 ino 5 born - max 9\n"            /* twice, the same: fine */
		"file 8 ino 5 born - max 9";             /* cut short: no newline */
	struct bp_disk_marker m;
	struct bp_disk_file_seen s = { .regular = true, .size = 1, .id = { .ino = 5 } };

	CHECK_INT(bp_disk_marker_parse(text, sizeof(text) - 1, &m), 0);
	CHECK_INT(m.n, 8);
	for (uint32_t i = 0; i < 6; i++)
		CHECK(!m.recs[i].present);
	CHECK(m.recs[6].conflict);
	CHECK(bp_disk_marker_why_not(&m, 6, &s) != NULL);
	CHECK(bp_disk_marker_why_not(&m, 7, &s) == NULL);
	CHECK(bp_disk_marker_why_not(&m, 8, &s) != NULL);
	bp_disk_marker_free(&m);
	CHECK_INT(bp_disk_marker_parse("my own notes\n", 13, &m), -EINVAL);
	CHECK_INT(m.n, 0);
}

static void test_proof(void)
{
	struct bp_disk_file_seen s = seen_as(made.ino, made.born_s, 8192);

	CHECK(bp_disk_file_why_not(&made, 8192, &s) == NULL);
	s = seen_as(made.ino + 1, made.born_s, 16);
	CHECK(strstr(bp_disk_file_why_not(&made, 8192, &s), "inode") != NULL);
	s = seen_as(made.ino, made.born_s + 60, 8192);  /* the inode number reused */
	CHECK(strstr(bp_disk_file_why_not(&made, 8192, &s), "born") != NULL);
	s = seen_as(made.ino, made.born_s, 8193);
	CHECK(strstr(bp_disk_file_why_not(&made, 8192, &s), "larger") != NULL);
	s = seen_as(made.ino, made.born_s, 8192);
	s.id.born_known = false;  /* no birth time now where there was one: not proven */
	CHECK(bp_disk_file_why_not(&made, 8192, &s) != NULL);
	s = (struct bp_disk_file_seen){ .symlink = true, .id = made };
	CHECK(strstr(bp_disk_file_why_not(&made, 8192, &s), "symbolic link") != NULL);
	s = (struct bp_disk_file_seen){ .folder = true, .id = made };
	CHECK(strstr(bp_disk_file_why_not(&made, 8192, &s), "folder") != NULL);
}

static void test_names(void)
{
	CHECK_INT(bp_disk_set_index("test_file.0"), 0);
	CHECK_INT(bp_disk_set_index("test_file.65535"), 65535);
	CHECK_INT(bp_disk_set_index("test_file.65536"), -1);
	CHECK_INT(bp_disk_set_index("test_file.07"), -1);
	CHECK_INT(bp_disk_set_index("test_file."), -1);
	CHECK_INT(bp_disk_set_index("test_file.7x"), -1);
	CHECK_INT(bp_disk_set_index("notes.txt"), -1);
}

/* The identity of a real file, by descriptor and by name, agrees; a symlink is seen as one. */
static void test_real_files(void)
{
	char dir[] = "/tmp/bp-test-disk-marker.XXXXXX";
	struct bp_disk_file_id id;
	struct bp_disk_file_seen seen;
	int dfd, fd;

	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	fd = openat(dfd, "test_file.0", O_WRONLY | O_CREAT | O_EXCL, 0600);
	CHECK(fd >= 0);
	CHECK_INT(bp_disk_file_id_of_fd(fd, &id), 0);
	CHECK(write(fd, "0123456789abcdef", 16) == 16);
	close(fd);
	CHECK_INT(bp_disk_file_seen_at(dfd, "test_file.0", &seen), 0);
	CHECK(seen.regular && seen.size == 16);
	CHECK(bp_disk_file_why_not(&id, 16, &seen) == NULL);
	CHECK(symlinkat("test_file.0", dfd, "test_file.1") == 0);
	CHECK_INT(bp_disk_file_seen_at(dfd, "test_file.1", &seen), 0);
	CHECK(seen.symlink && !seen.regular);
	CHECK(bp_disk_file_why_not(&id, 16, &seen) != NULL);
	CHECK_INT(bp_disk_file_seen_at(dfd, "test_file.2", &seen), -ENOENT);
	unlinkat(dfd, "test_file.1", 0);
	unlinkat(dfd, "test_file.0", 0);
	close(dfd);
	CHECK(rmdir(dir) == 0);
}

int main(void)
{
	test_line_round_trip();
	test_bad_lines();
	test_proof();
	test_names();
	test_real_files();
	return tap_done();
}
