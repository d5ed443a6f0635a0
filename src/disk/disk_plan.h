/*
 * `boardperf disk`'s parameters as the option table fills them, and what they make: the
 * file layout and workload the workers run. Every usage error is found here, before a
 * byte is written, with a one-line message naming the value and what was expected.
 */
#ifndef BP_DISK_DISK_PLAN_H
#define BP_DISK_DISK_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "disk/disk_workload.h"

enum bp_disk_engine_kind { BP_DISK_ENGINE_SYNC, BP_DISK_ENGINE_URING };
enum bp_disk_sync_call { BP_DISK_CALL_FSYNC, BP_DISK_CALL_FDATASYNC };

/* Filled by the option table (cmd_disk.c); the choice fields hold the enums above. */
struct bp_disk_params {
	const char *dir;
	int mode;             /* enum bp_disk_mode */
	int64_t files;
	uint64_t size;        /* total */
	uint64_t block;
	double rw_ratio;
	int64_t fsync_freq;
	bool no_fsync_end;
	int fsync_mode;       /* enum bp_disk_sync_call */
	int fsync_scope;      /* enum bp_disk_sync_scope */
	int engine;           /* enum bp_disk_engine_kind */
	int64_t depth;
	bool direct;
	uint64_t time_ns;
	int64_t requests;
	int64_t threads;
	uint64_t interval_ns;
	bool clean;           /* first remove the sets killed runs left in dir */
	bool size_for_flash;  /* --size not given, on flash media: BP_DISK_FLASH_SIZE (cmd_disk.c) */
};

struct bp_disk_plan {
	struct bp_disk_workload wl;
	uint64_t total;        /* files x file size: the bytes really used */
	uint32_t nworkers;
	unsigned depth;
};

/*
 * The layout and workload of p, without looking at the filesystem. 0, or -EINVAL with a
 * message such as "--size 64.0 KiB over 128 files is 512 B per file, less than one
 * 16.0 KiB block; expected --size of at least 2.00 MiB".
 */
int bp_disk_plan_make(const struct bp_disk_params *p, struct bp_disk_plan *pl,
		      char *err, size_t errlen);

/*
 * --dir names an existing directory with room for the plan's files (and a little
 * metadata). 0, or -EINVAL with the message.
 */
int bp_disk_plan_check_dir(const struct bp_disk_params *p, const struct bp_disk_plan *pl,
			   char *err, size_t errlen);

/*
 * sysbench's 2 GiB takes minutes to write to an SD card or a USB stick (10 to 20 MB/s) and
 * wears it: there, when --size was not given, the set is this size instead (the result
 * says so, warning flash-default-size).
 */
#define BP_DISK_FLASH_SIZE (256ULL << 20)

/* The default --size on a device on bus ("mmc", "usb", ...): BP_DISK_FLASH_SIZE or size. */
uint64_t bp_disk_default_size(const char *bus, uint64_t size);

#endif
