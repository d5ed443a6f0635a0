#include "board/nic.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "board/devpath.h"
#include "board/jsonval.h"
#include "board/sysfs.h"

#define NET "/sys/class/net/%s/"

/* Virtual interfaces have no device/driver link; name the common ones by their marks. */
static void read_driver(const char *root, struct bp_nic_info *nic)
{
	if (bp_sysfs_link_name(root, nic->driver, sizeof(nic->driver), NET "device/driver",
			       nic->name) == 0)
		return;
	if (bp_sysfs_exists(root, NET "bridge", nic->name))
		bp_strlcpy(nic->driver, "bridge", sizeof(nic->driver));
	else if (bp_sysfs_exists(root, NET "tun_flags", nic->name))
		bp_strlcpy(nic->driver, "tun", sizeof(nic->driver));
}

static void read_bus(const char *root, struct bp_nic_info *nic)
{
	char path[1024];
	enum bp_bus bus;

	if (bp_sysfs_resolve(root, path, sizeof(path), "/sys/class/net/%s", nic->name) < 0)
		return;
	bus = bp_devpath_bus(path);
	/* a NIC on the MMC host is an SDIO card (most on-board Wi-Fi) */
	bp_strlcpy(nic->bus, bus == BP_BUS_MMC ? "sdio" : bp_bus_name(bus), sizeof(nic->bus));
	if (bus == BP_BUS_USB)
		bp_devpath_usb_speed(root, path, &nic->usb_speed_mbps);
}

int bp_nic_read(const char *root, const char *name, struct bp_nic_info *nic)
{
	int64_t v;

	memset(nic, 0, sizeof(*nic));
	nic->speed_mbps = nic->mtu = BP_INT_UNKNOWN;
	nic->carrier = -1;
	nic->usb_speed_mbps = NAN;
	bp_strlcpy(nic->name, name, sizeof(nic->name));
	if (!bp_sysfs_exists(root, "/sys/class/net/%s", name))
		return -ENOENT;
	read_driver(root, nic);
	read_bus(root, nic);
	/* -1 (SPEED_UNKNOWN) is what drivers report with no link */
	if (bp_sysfs_int(root, &v, NET "speed", name) == 0 && v > 0)
		nic->speed_mbps = v;
	bp_sysfs_str(root, nic->duplex, sizeof(nic->duplex), NET "duplex", name);
	if (strcmp(nic->duplex, "unknown") == 0)
		nic->duplex[0] = '\0';
	if (bp_sysfs_int(root, &v, NET "mtu", name) == 0 && v > 0)
		nic->mtu = v;
	if (bp_sysfs_int(root, &v, NET "carrier", name) == 0 && (v == 0 || v == 1))
		nic->carrier = (int)v;
	bp_sysfs_str(root, nic->operstate, sizeof(nic->operstate), NET "operstate", name);
	bp_sysfs_str(root, nic->mac, sizeof(nic->mac), NET "address", name);
	nic->wireless = bp_sysfs_exists(root, NET "wireless", name) ||
			bp_sysfs_exists(root, NET "phy80211", name);
	return 0;
}

int bp_nic_list(const char *root, struct bp_nic_info **nics)
{
	char **names;
	int n = bp_sysfs_list(root, "", &names, "/sys/class/net");
	int count = 0;

	*nics = NULL;
	if (n <= 0)
		return 0;
	*nics = calloc((size_t)n, sizeof(**nics));
	for (int i = 0; *nics && i < n; i++) {
		/* loopback says nothing about the board */
		if (strcmp(names[i], "lo") == 0 || strcmp(names[i], "bonding_masters") == 0)
			continue;
		if (bp_nic_read(root, names[i], &(*nics)[count]) == 0)
			count++;
	}
	bp_sysfs_names_free(names, n);
	return count;
}

json_t *bp_nic_to_json(const struct bp_nic_info *nic)
{
	json_t *o = json_object();
	char label[16];

	bp_usb_speed_label(nic->usb_speed_mbps, label, sizeof(label));
	bp_json_put(o, "name", json_string(nic->name));
	bp_json_put(o, "driver", bp_json_str_or_null(nic->driver));
	bp_json_put(o, "bus", bp_json_str_or_null(nic->bus));
	bp_json_put(o, "speed_mbps", bp_json_int_or_null(nic->speed_mbps));
	bp_json_put(o, "duplex", bp_json_str_or_null(nic->duplex));
	bp_json_put(o, "mtu", bp_json_int_or_null(nic->mtu));
	bp_json_put(o, "carrier", bp_json_bool_or_null(nic->carrier));
	bp_json_put(o, "operstate", bp_json_str_or_null(nic->operstate));
	bp_json_put(o, "mac", bp_json_str_or_null(nic->mac));
	bp_json_put(o, "usb_speed_mbps", bp_json_number_or_null(nic->usb_speed_mbps));
	bp_json_put(o, "usb_speed", bp_json_str_or_null(label));
	bp_json_put(o, "wireless", json_boolean(nic->wireless));
	return o;
}
