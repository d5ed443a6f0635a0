#include "board/devpath.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board/sysfs.h"

/* seg (n bytes) is prefix followed by one or more digits */
static bool seg_numbered(const char *seg, size_t n, const char *prefix)
{
	size_t p = strlen(prefix);

	if (n <= p || strncmp(seg, prefix, p) != 0)
		return false;
	for (size_t i = p; i < n; i++)
		if (!isdigit((unsigned char)seg[i]))
			return false;
	return true;
}

static bool seg_is(const char *seg, size_t n, const char *word)
{
	return strlen(word) == n && strncmp(seg, word, n) == 0;
}

/* What one path component says; BP_BUS_UNKNOWN when it says nothing. */
static enum bp_bus seg_bus(const char *s, size_t n)
{
	/* usbN is the root hub: everything below it is on USB, whatever the SCSI layers say */
	if (seg_numbered(s, n, "usb"))
		return BP_BUS_USB;
	if (seg_is(s, n, "mmc_host"))
		return BP_BUS_MMC;
	/* multipath NVMe namespaces live under /sys/devices/virtual/nvme-subsystem */
	if (seg_is(s, n, "nvme") || seg_is(s, n, "nvme-subsystem"))
		return BP_BUS_NVME;
	if (seg_numbered(s, n, "virtio"))
		return BP_BUS_VIRTIO;
	if (seg_numbered(s, n, "ata"))
		return BP_BUS_SATA;
	if (seg_numbered(s, n, "host") || (n > 6 && strncmp(s, "target", 6) == 0))
		return BP_BUS_SCSI;
	if (n > 3 && strncmp(s, "pci", 3) == 0 && memchr(s, ':', n))
		return BP_BUS_PCI;
	if (seg_is(s, n, "platform"))
		return BP_BUS_PLATFORM;
	if (seg_is(s, n, "virtual"))
		return BP_BUS_VIRTUAL;
	return BP_BUS_UNKNOWN;
}

enum bp_bus bp_devpath_bus(const char *devpath)
{
	enum bp_bus best = BP_BUS_UNKNOWN;
	const char *s = devpath;

	if (!s)
		return BP_BUS_UNKNOWN;
	/*
	 * The enum is ordered most specific first: a USB stick's path also holds
	 * pci0000:00 and host0/target0:0:0, and the USB part is what limits it.
	 */
	while (*s) {
		size_t n;
		enum bp_bus b;

		while (*s == '/')
			s++;
		n = strcspn(s, "/");
		b = seg_bus(s, n);
		if (b != BP_BUS_UNKNOWN && (best == BP_BUS_UNKNOWN || b < best))
			best = b;
		s += n;
	}
	return best;
}

const char *bp_bus_name(enum bp_bus bus)
{
	static const char *const names[] = {
		[BP_BUS_UNKNOWN] = "unknown",	[BP_BUS_USB] = "usb",
		[BP_BUS_MMC] = "mmc",		[BP_BUS_NVME] = "nvme",
		[BP_BUS_VIRTIO] = "virtio",	[BP_BUS_SATA] = "sata",
		[BP_BUS_SCSI] = "scsi",		[BP_BUS_PCI] = "pci",
		[BP_BUS_PLATFORM] = "platform",	[BP_BUS_VIRTUAL] = "virtual",
	};

	if ((unsigned)bus >= sizeof(names) / sizeof(names[0]))
		return "unknown";
	return names[bus];
}

/* USB device directories are named BUS-PORT[.PORT...]; interfaces add ":CFG.IF". */
static bool is_usb_device_name(const char *s, size_t n)
{
	size_t i = 0;
	bool dash = false;

	if (n == 0 || !isdigit((unsigned char)s[0]))
		return false;
	for (; i < n; i++) {
		char c = s[i];

		if (c == '-' && !dash && i > 0)
			dash = true;
		else if (c == '.' && dash && isdigit((unsigned char)s[i - 1]))
			continue;
		else if (!isdigit((unsigned char)c))
			return false;
	}
	return dash && isdigit((unsigned char)s[n - 1]);
}

int bp_devpath_usb_speed(const char *root, const char *devpath, double *mbps)
{
	char path[4096], buf[32];
	size_t len;

	*mbps = NAN;
	if (bp_strlcpy(path, devpath, sizeof(path)) >= sizeof(path))
		return -ENAMETOOLONG;
	len = strlen(path);
	while (len > 1) {
		char *slash = strrchr(path, '/');
		const char *name = slash ? slash + 1 : path;

		if (is_usb_device_name(name, strlen(name))) {
			char *end;
			double v;

			if (bp_sysfs_str(root, buf, sizeof(buf), "%s/speed", path) < 0)
				return -ENOENT;
			v = strtod(buf, &end);
			if (end == buf || *end || !(v > 0))
				return -EINVAL;
			*mbps = v;
			return 0;
		}
		if (!slash || slash == path)
			break;
		*slash = '\0';
		len = (size_t)(slash - path);
	}
	return -ENOENT;
}

void bp_usb_speed_label(double mbps, char *buf, size_t len)
{
	if (isnan(mbps))
		snprintf(buf, len, "unknown");
	else if (mbps >= 1000)
		snprintf(buf, len, "%gG", mbps / 1000);
	else
		snprintf(buf, len, "%gM", mbps);
}
