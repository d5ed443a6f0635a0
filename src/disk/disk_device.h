/*
 * What the disk figures were measured on, and when they are not the medium's own:
 * - params.device and params.filesystem name the device behind --dir in words (an SD card
 *   with its manufacturer id and date, a USB device with its negotiated speed), and
 *   env.inventory.storage holds everything `boardperf info --dir` shows about it;
 * - warnings: page-cache (the working set fits in RAM and --direct is off, or nothing
 *   forces writes out), not-a-block-device (tmpfs and friends: the figures are RAM's),
 *   usb-2.0-storage (the link caps any figure at 480 Mbit/s), exceeds-bus (a figure above
 *   what the bus carries: it cannot have crossed it), cpu-governor (a governor that lets
 *   the clock drop while the CPU waits for I/O).
 */
#ifndef BP_DISK_DISK_DEVICE_H
#define BP_DISK_DISK_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "board/blockdev.h"
#include "disk/disk_workload.h"

struct bp_result;

/* What the warnings are decided from; the measured rates are NaN when unknown. */
struct bp_disk_facts {
	const struct bp_blockdev_info *dev;
	const char *dir;
	enum bp_disk_mode mode;
	bool direct;
	bool syncs;               /* periodic or final syncs force writes to the device */
	uint64_t working_set;     /* bytes of the file set */
	int64_t mem_total;        /* bytes of RAM; BP_INT_UNKNOWN when unknown */
	double cached_share;      /* of the set in the page cache at the start; NaN unknown */
	double read_rate, write_rate; /* B/s measured */
};

/* "mmcblk0 (SD card SC32G, mmc), manfid 0x000003, date 08/2019": device in words. */
void bp_disk_device_describe(const struct bp_blockdev_info *dev, char *buf, size_t len);

/* params.device, params.filesystem and env.inventory.storage. 0 or -ENOMEM. */
int bp_disk_device_record(struct bp_result *r, const struct bp_blockdev_info *dev);

/* Every warning the facts call for. 0 or -ENOMEM. */
int bp_disk_device_warn(struct bp_result *r, const struct bp_disk_facts *f);

/* cpu-governor, from the cpufreq files under root ("/" or a fixture). 0 or -ENOMEM. */
int bp_disk_governor_warn(struct bp_result *r, const char *root);

/* The most a bus carries in B/s (a USB link's negotiated speed); NaN when unknown. */
double bp_disk_bus_ceiling(const struct bp_blockdev_info *dev);

#endif
