/*
 * What a /sys/devices path tells about the hardware behind it: the bus a disk or NIC
 * hangs off, and for USB devices the speed the link negotiated. Both NIC and block-device
 * inventory use this, and later the disk test's "usb-2.0-storage" warning.
 */
#ifndef BP_BOARD_DEVPATH_H
#define BP_BOARD_DEVPATH_H

#include <stddef.h>

enum bp_bus {
	BP_BUS_UNKNOWN = 0,
	BP_BUS_USB,
	BP_BUS_MMC,		/* SD/eMMC card; SDIO for a NIC */
	BP_BUS_NVME,
	BP_BUS_VIRTIO,
	BP_BUS_SATA,		/* libata: SATA or PATA */
	BP_BUS_SCSI,		/* any other SCSI host (SAS, virtio-scsi, UAS shows as usb) */
	BP_BUS_PCI,
	BP_BUS_PLATFORM,	/* SoC-internal device from the device tree */
	BP_BUS_VIRTUAL,		/* bridge, loop, zram, device-mapper */
};

/* Classifies a resolved path such as "/sys/devices/platform/soc/1c14000.usb/usb2/2-1/...". */
enum bp_bus bp_devpath_bus(const char *devpath);

/* "usb", "mmc", "nvme", "virtio", "sata", "scsi", "pci", "platform", "virtual", "unknown". */
const char *bp_bus_name(enum bp_bus bus);

/*
 * Walks up devpath to the nearest USB device ("2-1", "1-1.3") and reads its negotiated
 * speed in Mbit/s (1.5, 12, 480, 5000, 10000, 20000). -ENOENT when not on USB.
 */
int bp_devpath_usb_speed(const char *root, const char *devpath, double *mbps);

/* "480M", "5G", ... the way lsusb -t names speeds; "unknown" for NaN. */
void bp_usb_speed_label(double mbps, char *buf, size_t len);

#endif
