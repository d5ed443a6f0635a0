/*
 * Network interfaces from /sys/class/net: the driver, the bus, and the negotiated link.
 * A "gigabit" board whose NIC sits behind USB 2.0, or a link that came up at 100 Mb/s,
 * explains a network result better than any tuning.
 */
#ifndef BP_BOARD_NIC_H
#define BP_BOARD_NIC_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

struct bp_nic_info {
	char name[32];			/* "eth0" */
	char driver[32];		/* "bcmgenet", "dwmac-sunxi", "r8152", "" */
	char bus[16];			/* "usb", "pci", "platform", "sdio", "virtio", "virtual" */
	int64_t speed_mbps;		/* BP_INT_UNKNOWN when down, wireless, or -1 */
	char duplex[16];		/* "full", "half", "" */
	int64_t mtu;
	int carrier;			/* 1, 0, or -1 when unreadable (interface down) */
	char operstate[16];		/* "up", "down", "dormant", ... */
	char mac[24];			/* "dc:a6:32:01:02:03" */
	double usb_speed_mbps;		/* USB NICs: the USB link, e.g. 480; NaN otherwise */
	bool wireless;			/* a Wi-Fi radio's interface (its wireless/ or phy80211 in sysfs) */
};

/* One interface by name. -ENOENT when it does not exist. */
int bp_nic_read(const char *root, const char *name, struct bp_nic_info *nic);

/* Every interface but lo, sorted by name; *nics is malloc'd (free()). Returns the count. */
int bp_nic_list(const char *root, struct bp_nic_info **nics);

json_t *bp_nic_to_json(const struct bp_nic_info *nic);

#endif
