/*
 * The disk test's file set: a folder of its own inside the directory the user names
 * (PATH/boardperf-disk.XXXXXX, made by mkdtemp so that it can never be someone else's),
 * the files in it (test_file.0 .. test_file.N-1, sysbench's names), and their removal.
 *
 * Only what this code created is ever removed: it keeps who each file it made is, unlinks
 * just those that still are (a file put in one's place is left) through a descriptor of its
 * own folder (so a rename of PATH meanwhile cannot redirect it), and removes the folder only
 * when that leaves it empty.
 *
 * The folder holds a marker file (BP_DISK_MARKER) from the moment it exists: it says the
 * folder is boardperf's, it records each file made (disk_marker.h: inode, birth time, size)
 * right after its creation, and the run holds an exclusive flock on it for its whole life. A
 * run killed by SIGKILL cannot remove its files, but the kernel drops its lock, so the
 * next run can tell a folder left behind (marked, unlocked) from one a run is using
 * (locked) and from anyone else's (no marker): see disk_stale.h.
 */
#ifndef BP_DISK_DISK_FILES_H
#define BP_DISK_DISK_FILES_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "disk/disk_marker.h"
#include "disk/disk_workload.h"

/* The folder's name before mkdtemp fills in the X's. */
#define BP_DISK_FOLDER_PREFIX "boardperf-disk."


struct bp_disk_files {
	char path[PATH_MAX];  /* PATH/boardperf-disk.XXXXXX */
	char name[32];        /* boardperf-disk.XXXXXX */
	int parent_fd;        /* PATH */
	int dir_fd;           /* our folder; -1 before it exists */
	int marker_fd;        /* BP_DISK_MARKER, flock'ed while the set is ours; -1: none */
	uint32_t nfiles;
	uint32_t created;     /* test_file.0 .. created-1 exist and are ours */
	int *fds;             /* open for the run; -1 when closed */
	struct bp_disk_file_id *ids;  /* who each file made is: removed only if still it */
	uint64_t max_size;    /* the most bytes the run writes into a file */
};

/* Called between chunks of preparation: bytes written so far of total. */
typedef void (*bp_disk_progress_fn)(void *arg, uint64_t done, uint64_t total);

/*
 * The bytes a file set needs on the filesystem: its data, plus a block of metadata per
 * file (inode, extent tree) and 1 MiB to spare, so that a run never fills the disk.
 */
uint64_t bp_disk_space_needed(uint64_t total, uint32_t nfiles);

/*
 * Free space for an unprivileged writer below dir (statvfs f_bavail); 0 or -errno.
 */
int bp_disk_space_free(const char *dir, uint64_t *bytes);

/*
 * Makes our folder in parent for nfiles files, with its marker, locked. 0, or -errno with
 * a one-line message. Before it, a struct needs parent_fd, dir_fd and marker_fd at -1 for
 * bp_disk_files_remove to be safe on it.
 */
int bp_disk_files_init(struct bp_disk_files *f, const char *parent, uint32_t nfiles,
		       char *err, size_t errlen);

/*
 * Creates every file of the layout: filled with file_size bytes of random data and synced
 * (as sysbench prepares them, so that the run does not pay for the preparation's
 * writeback), or empty when fill is false (seqwr writes them itself). Like sysbench, it
 * writes one block at a time: the page cache sizes its folios by the writes that filled
 * it, and a set written in 1 MiB pieces (large folios) makes every 16 KiB write of the run
 * dirty, and every fsync write back, far more than a block (measured: writes 3x and fsyncs
 * 1.3x slower than on sysbench's own files). Stops early with -EINTR when a stop is
 * requested. 0 or -errno with a one-line message.
 */
int bp_disk_files_prepare(struct bp_disk_files *f, const struct bp_disk_layout *l, bool fill,
			  bp_disk_progress_fn progress, void *arg, char *err, size_t errlen);

/*
 * Room for nfiles open at once (plus stdio, the io_uring ring, the folder): the soft
 * RLIMIT_NOFILE (often 1024) is raised toward the hard one when needed. 0, or -EMFILE
 * with "--files N: more than ..." when the hard limit is too low.
 */
int bp_disk_files_fd_room(uint32_t nfiles, char *err, size_t errlen);

/*
 * Opens every file for the run; with direct, O_DIRECT, and the set is dropped from the page
 * cache (it is clean: prepared and synced). 0 or -errno with a message.
 */
int bp_disk_files_open(struct bp_disk_files *f, bool direct, char *err, size_t errlen);

/* Share (0..1) of the set's pages in the page cache now (mincore); NaN when unknown. */
double bp_disk_files_cached_share(const struct bp_disk_files *f, uint64_t file_size);

/*
 * Closes and removes the files this code created, then the marker and the folder. Safe to
 * call at any point after init (and twice). 0, or -errno with a message naming what was
 * left behind; a folder kept by someone else's file keeps its marker too, so that the next
 * run names it (stale-files) rather than keeping it silently.
 */
int bp_disk_files_remove(struct bp_disk_files *f, char *err, size_t errlen);

/* Fills buf with bytes from a random stream (seeded): data no filesystem can compress. */
void bp_disk_fill_random(void *buf, size_t len, uint64_t seed);

#endif
