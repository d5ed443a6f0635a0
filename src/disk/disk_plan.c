#include "disk/disk_plan.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/units.h"
#include "disk/disk_files.h"

/* O_DIRECT transfers whole logical blocks; 512 bytes is the smallest any device has. */
#define DIRECT_UNIT 512

static int check_layout(const struct bp_disk_params *p, char *err, size_t errlen)
{
	char size[32], blk[32], per[32], least[32];
	uint64_t file_size = p->size / (uint64_t)p->files;

	if (file_size >= p->block)
		return 0;
	snprintf(err, errlen, "--size %s over %lld files is %s per file, less than one %s "
		 "block; expected --size of at least %s",
		 bp_format_bytes(size, sizeof(size), (double)p->size), (long long)p->files,
		 bp_format_bytes(per, sizeof(per), (double)file_size),
		 bp_format_bytes(blk, sizeof(blk), (double)p->block),
		 bp_format_bytes(least, sizeof(least), (double)p->block * (double)p->files));
	return -EINVAL;
}

/* Each thread holds --depth buffers of --block bytes; more than this is a typo. */
#define MAX_BUFFERS ((uint64_t)1 << 30)

static int check_buffers(const struct bp_disk_params *p, char *err, size_t errlen)
{
	char blk[32], all[32], most[32];
	double bytes = (double)p->threads * (double)p->depth * (double)p->block;

	if (bytes <= (double)MAX_BUFFERS)
		return 0;
	snprintf(err, errlen, "--threads %lld x --depth %lld x --block %s = %s of buffers; "
		 "expected at most %s", (long long)p->threads, (long long)p->depth,
		 bp_format_bytes(blk, sizeof(blk), (double)p->block),
		 bp_format_bytes(all, sizeof(all), bytes),
		 bp_format_bytes(most, sizeof(most), (double)MAX_BUFFERS));
	return -EINVAL;
}

static int check_combinations(const struct bp_disk_params *p, char *err, size_t errlen)
{
	if (!p->time_ns && !p->requests) {
		snprintf(err, errlen, "-t 0 with --requests 0: nothing would end the run; expected "
			 "a time above 0 or a number of requests");
		return -EINVAL;
	}
	if (p->depth > 1 && p->engine == BP_DISK_ENGINE_SYNC) {
		snprintf(err, errlen, "--depth %lld: the sync engine has one request in flight; "
			 "expected --depth 1, or --engine io_uring", (long long)p->depth);
		return -EINVAL;
	}
	if (p->direct && p->block % DIRECT_UNIT) {
		snprintf(err, errlen, "--block %llu with --direct: expected a multiple of %d bytes "
			 "(O_DIRECT moves whole device blocks)", (unsigned long long)p->block,
			 DIRECT_UNIT);
		return -EINVAL;
	}
	return check_buffers(p, err, errlen);
}

int bp_disk_plan_make(const struct bp_disk_params *p, struct bp_disk_plan *pl,
		      char *err, size_t errlen)
{
	uint64_t file_size;
	int rc = check_combinations(p, err, errlen);

	if (!rc)
		rc = check_layout(p, err, errlen);
	if (rc)
		return rc;
	/* sysbench's S = total / F, here rounded down to whole blocks (O_DIRECT needs them) */
	file_size = p->size / (uint64_t)p->files / p->block * p->block;
	*pl = (struct bp_disk_plan){
		.wl = {
			.mode = (enum bp_disk_mode)p->mode,
			.layout = { .nfiles = (uint32_t)p->files, .block = (uint32_t)p->block,
				    .file_size = file_size },
			.rw_ratio = p->rw_ratio,
			.sync_freq = (uint32_t)p->fsync_freq,
			.sync_end = !p->no_fsync_end,
			.scope = (enum bp_disk_sync_scope)p->fsync_scope,
		},
		.total = file_size * (uint64_t)p->files,
		.nworkers = (uint32_t)p->threads,
		.depth = (unsigned)p->depth,
	};
	return 0;
}

uint64_t bp_disk_default_size(const char *bus, uint64_t size)
{
	bool flash = bus && (!strcmp(bus, "mmc") || !strcmp(bus, "usb"));

	return flash && size > BP_DISK_FLASH_SIZE ? BP_DISK_FLASH_SIZE : size;
}

int bp_disk_plan_check_dir(const struct bp_disk_params *p, const struct bp_disk_plan *pl,
			   char *err, size_t errlen)
{
	char size[32], need[32], have[32];
	uint64_t needed = bp_disk_space_needed(pl->total, pl->wl.layout.nfiles), avail;
	struct stat st;
	int rc;

	if (!p->dir) {
		snprintf(err, errlen, "--dir missing: expected the directory to test in "
			 "(boardperf makes and removes a folder of its own there)");
		return -EINVAL;
	}
	if (stat(p->dir, &st)) {
		snprintf(err, errlen, "--dir '%s': %s; expected an existing directory", p->dir,
			 strerror(errno));
		return -EINVAL;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "--dir '%s': not a directory; expected an existing directory",
			 p->dir);
		return -EINVAL;
	}
	if (access(p->dir, W_OK | X_OK)) {
		snprintf(err, errlen, "--dir '%s': %s; expected a directory this user may write in",
			 p->dir, strerror(errno));
		return -EINVAL;
	}
	if (bp_disk_files_fd_room(pl->wl.layout.nfiles, err, errlen))
		return -EINVAL;
	rc = bp_disk_space_free(p->dir, &avail);
	if (!rc && needed > avail) {
		snprintf(err, errlen, "--size %s: needs %s in '%s', only %s free there; expected a "
			 "smaller --size", bp_format_bytes(size, sizeof(size), (double)pl->total),
			 bp_format_bytes(need, sizeof(need), (double)needed), p->dir,
			 bp_format_bytes(have, sizeof(have), (double)avail));
		return -EINVAL;
	}
	return 0;
}
