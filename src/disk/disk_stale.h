/*
 * File sets that earlier disk runs left behind: a run killed with SIGKILL (or a power cut)
 * never reaches its removal, and its PATH/boardperf-disk.XXXXXX folder (gigabytes, often on
 * a small SD card) would stay unnoticed. The next run names each such folder, and with
 * --clean removes it.
 *
 * A folder counts as left behind only when it is boardperf's and nobody uses it: it holds
 * the marker (BP_DISK_MARKER, a regular file starting with BP_DISK_MARKER_MAGIC) and its
 * flock can be taken, which fails while a run holds it (disk_files.c). A folder with the
 * name but no marker is someone else's and is neither named nor touched. Removing one takes
 * only its test_file.N files and the marker, under that lock; a folder that still holds
 * anything else keeps it, and its marker.
 */
#ifndef BP_DISK_DISK_STALE_H
#define BP_DISK_DISK_STALE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bp_disk_stale {
	char path[PATH_MAX + 64];  /* PATH/boardperf-disk.XXXXXX */
	uint64_t bytes;            /* the set's files (test_file.N): what removing frees */
	bool tried;                /* a removal was asked for (clean) */
	int rc;                    /* its outcome: 0 removed, or -errno */
	char message[PATH_MAX + 160]; /* why it failed: the path and what is left */
};

typedef void (*bp_disk_stale_fn)(void *arg, const struct bp_disk_stale *s);

/*
 * Calls fn for each folder of parent left behind, after removing it first when clean is
 * set. The number found, or -errno with a message when parent cannot be read.
 */
int bp_disk_stale_scan(const char *parent, bool clean, bp_disk_stale_fn fn, void *arg,
		       char *err, size_t errlen);

#endif
