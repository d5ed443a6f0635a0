/*
 * Which filesystem holds a path, from /proc/self/mountinfo below the root. This is how a
 * path on tmpfs, overlay or NFS (no block device: st_dev major 0) is still described,
 * and how btrfs's anonymous device numbers lead back to the partition.
 */
#ifndef BP_BOARD_MOUNTINFO_H
#define BP_BOARD_MOUNTINFO_H

#include <stddef.h>

struct bp_mount_info {
	unsigned major, minor;
	char mount_point[512];	/* octal escapes (\040) decoded */
	char fstype[32];	/* "ext4", "vfat", "tmpfs", "nfs4", "overlay" */
	char source[256];	/* "/dev/mmcblk0p2", "tmpfs", "server:/export" */
};

/* Parses one mountinfo line; -EINVAL when it is not one. */
int bp_mountinfo_parse_line(const char *line, struct bp_mount_info *m);

/*
 * The mount of device major:minor. With path (absolute), among several mounts of the same
 * device (bind mounts) the one whose mount point is the longest prefix of path; without,
 * the first. -ENOENT when none matches.
 */
int bp_mount_find(const char *root, unsigned major, unsigned minor, const char *path,
		  struct bp_mount_info *m);

#endif
