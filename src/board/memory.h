/*
 * RAM, swap and zram from /proc/meminfo and /sys/block/zram*. On a 512 MiB board the
 * available memory decides how big a disk test file must be to beat the page cache, and
 * zram swap competes with the test for CPU.
 */
#ifndef BP_BOARD_MEMORY_H
#define BP_BOARD_MEMORY_H

#include <stdint.h>

#include <jansson.h>

#define BP_MEMORY_MAX_ZRAM 8

struct bp_zram_info {
	char name[16];			/* "zram0" */
	int64_t disksize_bytes;		/* BP_INT_UNKNOWN when unreadable */
	char algorithm[24];		/* the [selected] one of comp_algorithm: "zstd" */
};

struct bp_memory_info {
	/* bytes; BP_INT_UNKNOWN when the line is missing or damaged */
	int64_t total_bytes, available_bytes, swap_total_bytes, swap_free_bytes;
	int n_zram;
	struct bp_zram_info zram[BP_MEMORY_MAX_ZRAM];
};

int bp_memory_read(const char *root, struct bp_memory_info *m);

/* The bracketed entry of "lzo lzo-rle [zstd]"; -ENOENT when there is none. */
int bp_zram_selected_algorithm(const char *list, char *out, size_t len);

json_t *bp_memory_to_json(const struct bp_memory_info *m);

#endif
