/*
 * What the marker (BP_DISK_MARKER) records of each file a run made, so that a file is
 * removed only when boardperf can prove it made that very file: a name alone proves nothing
 * (anyone may put a test_file.7 of their own into the folder, or replace ours with theirs).
 *
 * Right after creating test_file.N (O_EXCL: it is new), the run appends one line:
 *
 *   file N ino INODE born SEC.NSEC max SIZE
 *
 * INODE and the birth time are the new file's (statx; "born -" where the filesystem keeps
 * no birth time), SIZE the most the run ever writes into it. A file counts as the one made
 * when it is a regular file (never a symlink: nothing is followed), under the name recorded,
 * with that inode, that birth time (an inode number can be reused once a file is deleted;
 * its birth time then differs) and no larger than SIZE. Anything else is left, with the
 * reason. On a filesystem without birth times the inode number alone decides; on one whose
 * inode numbers do not survive a remount (FAT), files made before a reboot are left.
 */
#ifndef BP_DISK_DISK_MARKER_H
#define BP_DISK_DISK_MARKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The marker in our folder, and the line it starts with (what makes it ours). */
#define BP_DISK_MARKER "boardperf-marker"
#define BP_DISK_MARKER_MAGIC "boardperf disk file set\n"

/* The most files a set has (disk --files); a record of a higher N is not ours. */
#define BP_DISK_MARKER_FILES_MAX 65536u

/* The most bytes of a marker read: a full set's lines (~60 bytes each) fit with room. */
#define BP_DISK_MARKER_BYTES_MAX ((size_t)8 << 20)

/* Who a file is: its inode and, where the filesystem keeps one, its birth time. */
struct bp_disk_file_id {
	uint64_t ino;
	bool born_known;
	int64_t born_s;
	uint32_t born_ns;
};

/* What stands under a name now (not followed through a symlink). */
struct bp_disk_file_seen {
	bool regular;
	bool symlink;
	bool folder;
	uint64_t size;
	struct bp_disk_file_id id;
};

/* One record: present (a line for N), conflicting (two different lines: trust neither). */
struct bp_disk_marker_rec {
	bool present, conflict;
	struct bp_disk_file_id id;
	uint64_t max_size;
};

/* A marker's records, indexed by N (n of them, up to the highest N recorded). */
struct bp_disk_marker {
	struct bp_disk_marker_rec *recs;
	uint32_t n;
};

/* The identity of the file open as fd; 0 or -errno. */
int bp_disk_file_id_of_fd(int fd, struct bp_disk_file_id *id);

/* What stands under name in dir_fd, without following a symlink; 0 or -errno. */
int bp_disk_file_seen_at(int dir_fd, const char *name, struct bp_disk_file_seen *seen);

/* The record line for file N; its length (< len), or -ENOSPC when it does not fit. */
int bp_disk_marker_line(char *buf, size_t len, uint32_t index, const struct bp_disk_file_id *id,
			uint64_t max_size);

/*
 * The records of a marker's text (len bytes, the magic line first): 0, -EINVAL when the
 * text does not start with BP_DISK_MARKER_MAGIC, -ENOMEM. Malformed and unfinished lines
 * record nothing. Free with bp_disk_marker_free.
 */
int bp_disk_marker_parse(const char *text, size_t len, struct bp_disk_marker *m);

/* Reads and parses the marker open as fd (at most BP_DISK_MARKER_BYTES_MAX); as parse. */
int bp_disk_marker_read(int fd, struct bp_disk_marker *m);

void bp_disk_marker_free(struct bp_disk_marker *m);

/*
 * N of a set file's name, "test_file.N" exactly as the run writes it (no leading zeros, N
 * below BP_DISK_MARKER_FILES_MAX); -1 for any other name.
 */
long bp_disk_set_index(const char *name);

/* Is seen the file recorded as made? NULL when proven, else why not (for a message). */
const char *bp_disk_marker_why_not(const struct bp_disk_marker *m, uint32_t index,
				   const struct bp_disk_file_seen *seen);

/* The same test against one identity (the run's own, kept in memory); NULL when proven. */
const char *bp_disk_file_why_not(const struct bp_disk_file_id *made, uint64_t max_size,
				 const struct bp_disk_file_seen *seen);

#endif
