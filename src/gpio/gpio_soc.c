#include "gpio/gpio_soc.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "board/sysfs.h"

/*
 * Pins per port, from the kernel's pin tables (drivers/pinctrl/sunxi/pinctrl-sun8i-h3.c,
 * pinctrl-sun7i-a20.c). The H3 has no port B: its registers exist but drive nothing. Port L
 * of the H3 is a second controller (R_PIO at 0x01f02c00, its own gpiochip), not these.
 */
static const unsigned char h3_ports[] = { 22, 0, 17, 18, 16, 7, 14 };            /* PA..PG */
static const unsigned char a20_ports[] = { 18, 24, 25, 28, 12, 6, 12, 28, 22 }; /* PA..PI */

/*
 * The Broadcom block is 0xb4 bytes (the trees' gpio@7e200000 reg); boardperf touches
 * GPFSEL0..5, GPSET0/1, GPCLR0/1 and GPLEV0/1 only (never the pull registers, which the
 * BCM2711 moved). The sunxi PIO is 0x400 bytes; ports sit at n * 0x24.
 * Lines: BCM2835_NUM_GPIOS 54, BCM2711_NUM_GPIOS 58 (pinctrl-bcm2835.c); sunxi chips count
 * whole ports up to the last pin (PG13 -> 224 on the H3, PI21 -> 288 on the A20).
 */
static const struct bp_gpio_soc_info socs[] = {
	{ "brcm,bcm2835", "BCM2835", BP_GPIO_SOC_BCM, "brcm,bcm2835-gpio", 0x20200000, 0xb4,
	  "pinctrl-bcm2835", 54, NULL, 0 },
	{ "brcm,bcm2836", "BCM2836", BP_GPIO_SOC_BCM, "brcm,bcm2835-gpio", 0x3f200000, 0xb4,
	  "pinctrl-bcm2835", 54, NULL, 0 },
	{ "brcm,bcm2837", "BCM2837", BP_GPIO_SOC_BCM, "brcm,bcm2835-gpio", 0x3f200000, 0xb4,
	  "pinctrl-bcm2835", 54, NULL, 0 },
	{ "brcm,bcm2711", "BCM2711", BP_GPIO_SOC_BCM, "brcm,bcm2711-gpio", 0xfe200000, 0xb4,
	  "pinctrl-bcm2711", 58, NULL, 0 },
	{ "allwinner,sun8i-h3", "Allwinner H3", BP_GPIO_SOC_SUNXI, "allwinner,sun8i-h3-pinctrl",
	  0x01c20800, 0x400, "1c20800.pinctrl", 224, h3_ports, sizeof(h3_ports) },
	/* the H2+ is an H3 die without gigabit and 4K: same PIO, same kernel driver */
	{ "allwinner,sun8i-h2-plus", "Allwinner H2+", BP_GPIO_SOC_SUNXI,
	  "allwinner,sun8i-h3-pinctrl", 0x01c20800, 0x400, "1c20800.pinctrl", 224, h3_ports,
	  sizeof(h3_ports) },
	{ "allwinner,sun7i-a20", "Allwinner A20", BP_GPIO_SOC_SUNXI, "allwinner,sun7i-a20-pinctrl",
	  0x01c20800, 0x400, "1c20800.pinctrl", 288, a20_ports, sizeof(a20_ports) },
};

/* The Broadcom GPIO block's bus address, the same on every chip of the family. */
#define BCM_GPIO_BUS 0x7e200000u

const char bp_gpio_soc_known[] = "BCM2835/6/7, BCM2711, Allwinner H3/H2+, A20";

/* sysfs first: /proc/device-tree is an absolute symlink to it, which a fixture cannot be. */
static const char *const dt_bases[] = {
	"/sys/firmware/devicetree/base",
	"/proc/device-tree",
};

const struct bp_gpio_soc_info *bp_gpio_soc_lookup(const char *compatible)
{
	for (size_t i = 0; i < sizeof(socs) / sizeof(socs[0]); i++)
		if (strcmp(compatible, socs[i].compatible) == 0)
			return &socs[i];
	return NULL;
}

static uint64_t be_cells(const uint8_t *p, unsigned cells)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < cells * 4; i++)
		v = v << 8 | p[i];
	return v;
}

int bp_gpio_dt_translate(const uint8_t *ranges, size_t len, unsigned child_ac, unsigned parent_ac,
			 unsigned child_sc, uint64_t addr, uint64_t *out)
{
	size_t entry = 4u * (child_ac + parent_ac + child_sc);

	if (child_ac < 1 || child_ac > 2 || parent_ac < 1 || parent_ac > 2 || child_sc > 2)
		return -EINVAL;
	if (len == 0) {
		/* an empty `ranges`: the child bus is the parent's address space */
		*out = addr;
		return 0;
	}
	if (len % entry)
		return -EINVAL;
	for (size_t off = 0; off < len; off += entry) {
		uint64_t child = be_cells(ranges + off, child_ac);
		uint64_t parent = be_cells(ranges + off + 4 * child_ac, parent_ac);
		uint64_t size = be_cells(ranges + off + 4 * (child_ac + parent_ac), child_sc);

		if (addr >= child && addr - child < size) {
			*out = parent + (addr - child);
			return 0;
		}
	}
	return -ERANGE;
}

/* A one-cell property (#address-cells); dflt when absent, as the DT spec defaults them. */
static unsigned dt_cells(const char *root, const char *base, const char *node, const char *prop,
			 unsigned dflt)
{
	char raw[8];

	if (bp_sysfs_raw(root, raw, sizeof(raw), "%s%s/%s", base, node, prop) != 4)
		return dflt;
	return (unsigned)be_cells((const uint8_t *)raw, 1);
}

/* Does the NUL-separated list in raw[0..n) hold want? */
static bool compat_has(const char *raw, ssize_t n, const char *want)
{
	for (ssize_t off = 0; off < n;) {
		const char *s = raw + off;

		if (strcmp(s, want) == 0)
			return true;
		off += (ssize_t)strlen(s) + 1;
	}
	return false;
}

/* The bus address of the controller node under /soc whose compatible lists the SoC's. */
static int find_gpio_node(const char *root, const char *base, const struct bp_gpio_soc_info *s,
			  unsigned ac, uint64_t *bus, char *node, size_t nodelen)
{
	char **names;
	int n = bp_sysfs_list(root, "", &names, "%s/soc", base);
	int ret = -ENOENT;

	for (int i = 0; i < n && ret < 0; i++) {
		char raw[256];
		uint8_t reg[16];
		ssize_t len = bp_sysfs_raw(root, raw, sizeof(raw), "%s/soc/%s/compatible", base,
					   names[i]);

		if (len <= 0 || !compat_has(raw, len, s->gpio_compatible))
			continue;
		len = bp_sysfs_raw(root, (char *)reg, sizeof(reg), "%s/soc/%s/reg", base, names[i]);
		if (len < (ssize_t)(4 * ac))
			continue;
		*bus = be_cells(reg, ac);
		snprintf(node, nodelen, "soc/%s", names[i]);
		ret = 0;
	}
	if (n > 0)
		bp_sysfs_names_free(names, n);
	return ret;
}

/* The block's CPU address: the controller's reg through soc's ranges, else the table. */
static void locate(const char *root, const char *base, struct bp_gpio_soc *out)
{
	const struct bp_gpio_soc_info *s = out->info;
	unsigned parent_ac = dt_cells(root, base, "", "#address-cells", 2);
	unsigned ac = dt_cells(root, base, "/soc", "#address-cells", 2);
	unsigned sc = dt_cells(root, base, "/soc", "#size-cells", 1);
	uint8_t ranges[256];
	char node[80] = "";
	uint64_t bus, phys;
	ssize_t rl = bp_sysfs_raw(root, (char *)ranges, sizeof(ranges), "%s/soc/ranges", base);

	out->phys = s->table_phys;
	snprintf(out->phys_from, sizeof(out->phys_from), "the %s table (no soc ranges in the "
		 "device tree)", s->name);
	if (rl < 0 || rl >= (ssize_t)sizeof(ranges) - 1)
		return;
	if (find_gpio_node(root, base, s, ac, &bus, node, sizeof(node)) < 0) {
		/* no controller node: where the family's block sits on the bus */
		bus = s->family == BP_GPIO_SOC_BCM ? BCM_GPIO_BUS : s->table_phys;
		node[0] = '\0';
	}
	if (bp_gpio_dt_translate(ranges, (size_t)rl, ac, parent_ac, sc, bus, &phys) < 0)
		return;
	out->phys = phys;
	if (node[0])
		snprintf(out->phys_from, sizeof(out->phys_from), "device tree %s%s", node,
			 rl ? " via soc ranges" : "");
	else
		snprintf(out->phys_from, sizeof(out->phys_from),
			 "device tree soc ranges (bus 0x%08" PRIx64 ")", bus);
}

int bp_gpio_soc_detect(const char *root, struct bp_gpio_soc *out, char *err, size_t errlen)
{
	char raw[1024], last[64] = "";
	ssize_t n = -1;
	size_t b;

	memset(out, 0, sizeof(*out));
	for (b = 0; b < 2; b++) {
		n = bp_sysfs_raw(root, raw, sizeof(raw), "%s/compatible", dt_bases[b]);
		if (n > 0)
			break;
	}
	if (n <= 0) {
		snprintf(err, errlen, "--method mmap: no device tree (%s/compatible): boardperf "
			 "writes GPIO registers only on SoCs it knows (%s)", dt_bases[1],
			 bp_gpio_soc_known);
		return -ENOENT;
	}
	for (ssize_t off = 0; off < n;) {
		const char *s = raw + off;
		const struct bp_gpio_soc_info *info = bp_gpio_soc_lookup(s);

		if (*s)
			bp_strlcpy(last, s, sizeof(last));
		if (info) {
			out->info = info;
			bp_strlcpy(out->compatible, s, sizeof(out->compatible));
			locate(root, dt_bases[b], out);
			return 0;
		}
		off += (ssize_t)strlen(s) + 1;
	}
	/* by convention the last entry names the SoC ("rockchip,rk3588"), so name that one */
	snprintf(err, errlen, "--method mmap: SoC '%s' is not one boardperf knows (%s)", last,
		 bp_gpio_soc_known);
	return -ENODEV;
}

int bp_gpio_soc_pin_check(const struct bp_gpio_soc_info *s, unsigned line, char *err,
			  size_t errlen)
{
	unsigned port = line / 32, pin = line % 32;
	char name[16];

	if (line >= s->lines) {
		snprintf(err, errlen, "--method mmap: line %u: the %s's %s has lines 0..%u", line,
			 s->name, s->chip_label, s->lines - 1);
		return -EINVAL;
	}
	if (s->family != BP_GPIO_SOC_SUNXI)
		return 0;
	bp_gpio_soc_pin_name(s, line, name, sizeof(name));
	if (port >= s->n_ports || pin >= s->port_pins[port]) {
		if (port < s->n_ports && s->port_pins[port] == 0)
			snprintf(err, errlen, "--method mmap: line %u is %s: the %s has no port %c",
				 line, name, s->name, 'A' + port);
		else
			snprintf(err, errlen, "--method mmap: line %u is %s: port %c of the %s has "
				 "pins 0..%u", line, name, 'A' + port, s->name,
				 port < s->n_ports ? s->port_pins[port] - 1u : 0u);
		return -EINVAL;
	}
	return 0;
}

void bp_gpio_soc_pin_name(const struct bp_gpio_soc_info *s, unsigned line, char *buf, size_t len)
{
	if (s->family == BP_GPIO_SOC_SUNXI)
		snprintf(buf, len, "P%c%u", 'A' + (line / 32) % 26, line % 32);
	else
		snprintf(buf, len, "GPIO%u", line);
}
