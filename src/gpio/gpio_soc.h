/*
 * Which SoC's GPIO registers `boardperf gpio --method mmap` may write, and where they are,
 * from the device tree (the only description of the hardware the kernel itself trusts).
 *
 * The SoC is the root node's `compatible` (a NUL-separated list, most specific first: the
 * board, then the SoC: "raspberrypi,3-model-b\0brcm,bcm2837\0"). The block's physical
 * address is the GPIO controller node's `reg` under /soc, translated to a CPU address
 * through the soc node's `ranges` (the Broadcom parts put their peripherals at bus address
 * 0x7e000000 and the CPU sees them at 0x20000000, 0x3f000000 or 0xfe000000 depending on the
 * chip); only when the tree lacks those nodes does the table's address stand.
 *
 * Everything is read below a root: "" on a board, a fixture tree in unit tests
 * (tests/unit/fixtures/dt-*), from sys/firmware/devicetree/base or else proc/device-tree.
 */
#ifndef BP_GPIO_GPIO_SOC_H
#define BP_GPIO_GPIO_SOC_H

#include <stddef.h>
#include <stdint.h>

enum bp_gpio_soc_family {
	BP_GPIO_SOC_BCM,   /* GPFSEL/GPSET/GPCLR/GPLEV: one store per write */
	BP_GPIO_SOC_SUNXI, /* PIO ports: CFG and DAT, no set/clear: read-modify-write */
};

/* One SoC boardperf knows (a row of the table in gpio_soc.c). */
struct bp_gpio_soc_info {
	const char *compatible;      /* the root compatible entry: "brcm,bcm2837" */
	const char *name;            /* "BCM2837", "Allwinner H3" */
	enum bp_gpio_soc_family family;
	const char *gpio_compatible; /* the controller node's: "brcm,bcm2835-gpio" */
	uint64_t table_phys;         /* the block's CPU address when the tree does not say */
	uint32_t block_len;          /* bytes of registers the method may touch */
	const char *chip_label;      /* the gpiochip of this controller: "pinctrl-bcm2835" */
	unsigned lines;              /* lines of that chip: 54, 58, 224 (H3), 288 (A20) */
	/* sunxi: pins per port (PA, PB, ...); a port with 0 does not exist on this die */
	const unsigned char *port_pins;
	unsigned n_ports;
};

/* What the device tree of this machine says. */
struct bp_gpio_soc {
	const struct bp_gpio_soc_info *info;
	char compatible[64]; /* the root compatible entry that matched */
	uint64_t phys;       /* CPU physical address of the GPIO block */
	char phys_from[96];  /* how phys was found: "device tree gpio@7e200000 via soc ranges" */
};

/* "BCM2835/6/7, BCM2711, Allwinner H3/H2+, A20": what error lines list as known. */
extern const char bp_gpio_soc_known[];

/*
 * Reads the device tree below root. 0 with *out filled; otherwise a one-line reason in err
 * and -ENODEV (a tree naming an SoC boardperf does not know: "SoC 'linux,dummy-virt' is not
 * one boardperf knows (...)") or -ENOENT (no device tree at all, e.g. a PC).
 */
int bp_gpio_soc_detect(const char *root, struct bp_gpio_soc *out, char *err, size_t errlen);

/* The table row for a root compatible entry ("brcm,bcm2711"); NULL when unknown. */
const struct bp_gpio_soc_info *bp_gpio_soc_lookup(const char *compatible);

/*
 * Translates a child bus address through a `ranges` property (big-endian cells: child
 * address, parent address, size; as many cells of each as the #address-cells/#size-cells
 * say). An empty property maps one to one. 0 with *out set, -ERANGE when no entry covers
 * addr, -EINVAL for a malformed property or cell counts beyond 2.
 */
int bp_gpio_dt_translate(const uint8_t *ranges, size_t len, unsigned child_ac, unsigned parent_ac,
			 unsigned child_sc, uint64_t addr, uint64_t *out);

/*
 * The line of the SoC's main controller that `line` of the chip is, as a pin the
 * registers know: on Broadcom the BCM GPIO number, on sunxi port*32 + pin. 0, or -EINVAL
 * with a one-line reason (a pin the die does not have, a line past the controller's).
 */
int bp_gpio_soc_pin_check(const struct bp_gpio_soc_info *s, unsigned line, char *err,
			  size_t errlen);

/* "PA0", "PG7": a sunxi line's port and pin name; "GPIO14" on Broadcom. */
void bp_gpio_soc_pin_name(const struct bp_gpio_soc_info *s, unsigned line, char *buf,
			  size_t len);

#endif
