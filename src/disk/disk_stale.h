/*
 * File sets that earlier disk runs left behind: a run killed with SIGKILL (or a power cut)
 * never reaches its removal, and its PATH/boardperf-disk.XXXXXX folder (gigabytes, often on
 * a small SD card) would stay unnoticed. The next run names each such folder, and with
 * --clean removes it.
 *
 * A folder counts as left behind only when it is boardperf's and nobody uses it: it holds
 * the marker (BP_DISK_MARKER, a regular file starting with BP_DISK_MARKER_MAGIC) and its
 * flock can be taken, which fails while a run holds it (disk_files.c). A folder with the
 * name but no marker is someone else's and is neither named nor touched.
 *
 * Removing one takes, under that lock, only the files the marker proves boardperf made
 * (disk_marker.h: name, inode, birth time, size), each checked just before its unlink;
 * everything else stays (a file of someone else's under a set name too, a symlink, which
 * is never followed), and then so do the marker and the folder, and the message says what
 * was removed, what was left and why.
 */
#ifndef BP_DISK_DISK_STALE_H
#define BP_DISK_DISK_STALE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bp_disk_stale {
	char path[PATH_MAX + 64];  /* PATH/boardperf-disk.XXXXXX */
	uint64_t bytes;            /* the files proven boardperf's: what removing frees */
	uint32_t files;            /* how many of them */
	uint32_t others;           /* entries besides them and the marker: never removed */
	char other[96];            /* the first of those (its name cut at 95 bytes); why: */
	const char *why;           /* static text, for the message */
	bool tried;                /* a removal was asked for (clean) */
	uint32_t removed;          /* files removed (clean) */
	uint64_t removed_bytes;
	int rc;                    /* the outcome: 0 folder removed, or -errno */
	char message[PATH_MAX + 768]; /* why it was not: what was removed, what is left, why */
};

typedef void (*bp_disk_stale_fn)(void *arg, const struct bp_disk_stale *s);

/*
 * Calls fn for each folder of parent left behind, after removing it first when clean is
 * set. The number found, or -errno with a message when parent cannot be read.
 */
int bp_disk_stale_scan(const char *parent, bool clean, bp_disk_stale_fn fn, void *arg,
		       char *err, size_t errlen);

#endif
