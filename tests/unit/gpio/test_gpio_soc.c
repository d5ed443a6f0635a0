/*
 * SoC detection for --method mmap against the device trees of real boards
 * (tests/unit/fixtures/dt-*: the properties gpio_soc.c reads, copied byte for byte from the
 * Debian 6.1 kernel's .dtb files and QEMU's virt machine), the ranges translation, and the
 * pin checks of each SoC.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gpio/gpio_soc.h"
#include "tap.h"

static const char *fixtures;

static const char *at(const char *tree)
{
	static char root[4096];

	snprintf(root, sizeof(root), "%s/%s", fixtures, tree);
	return root;
}

static const struct {
	const char *tree, *name, *compatible, *label;
	uint64_t phys;
	unsigned lines;
	const char *from; /* how the address was found */
} boards[] = {
	{ "dt-rpizero", "BCM2835", "brcm,bcm2835", "pinctrl-bcm2835", 0x20200000, 54,
	  "device tree soc/gpio@7e200000 via soc ranges" },
	{ "dt-rpi2b", "BCM2836", "brcm,bcm2836", "pinctrl-bcm2835", 0x3f200000, 54,
	  "device tree soc/gpio@7e200000 via soc ranges" },
	{ "dt-rpi3b", "BCM2837", "brcm,bcm2837", "pinctrl-bcm2835", 0x3f200000, 54,
	  "device tree soc/gpio@7e200000 via soc ranges" },
	/* two-cell parent addresses in the BCM2711's ranges */
	{ "dt-rpi4", "BCM2711", "brcm,bcm2711", "pinctrl-bcm2711", 0xfe200000, 58,
	  "device tree soc/gpio@7e200000 via soc ranges" },
	/* empty ranges: the reg is the CPU address; the R_PIO beside it is not picked */
	{ "dt-orangepi-pc", "Allwinner H3", "allwinner,sun8i-h3", "1c20800.pinctrl", 0x01c20800,
	  224, "device tree soc/pinctrl@1c20800" },
	{ "dt-orangepi-zero", "Allwinner H2+", "allwinner,sun8i-h2-plus", "1c20800.pinctrl",
	  0x01c20800, 224, "device tree soc/pinctrl@1c20800" },
	{ "dt-cubietruck", "Allwinner A20", "allwinner,sun7i-a20", "1c20800.pinctrl", 0x01c20800,
	  288, "device tree soc/pinctrl@1c20800" },
};

static void test_boards(void)
{
	for (size_t i = 0; i < sizeof(boards) / sizeof(boards[0]); i++) {
		struct bp_gpio_soc soc;
		char err[256] = "";

		printf("# %s\n", boards[i].tree);
		CHECK_INT(bp_gpio_soc_detect(at(boards[i].tree), &soc, err, sizeof(err)), 0);
		if (!soc.info)
			continue;
		CHECK_STR(soc.info->name, boards[i].name);
		CHECK_STR(soc.compatible, boards[i].compatible);
		CHECK_STR(soc.info->chip_label, boards[i].label);
		CHECK_INT(soc.info->lines, boards[i].lines);
		CHECK_INT(soc.phys, boards[i].phys);
		CHECK_STR(soc.phys_from, boards[i].from);
	}
}

static void test_unknown(void)
{
	struct bp_gpio_soc soc;
	char err[256] = "";

	/* QEMU's -M virt: a PL061, no SoC boardperf has registers for */
	CHECK_INT(bp_gpio_soc_detect(at("dt-virt"), &soc, err, sizeof(err)), -ENODEV);
	CHECK_STR(err, "--method mmap: SoC 'linux,dummy-virt' is not one boardperf knows "
		  "(BCM2835/6/7, BCM2711, Allwinner H3/H2+, A20)");
	CHECK(soc.info == NULL);
	/* a PC has no device tree at all */
	CHECK_INT(bp_gpio_soc_detect(at("x86-pc"), &soc, err, sizeof(err)), -ENOENT);
	CHECK(strstr(err, "no device tree (/proc/device-tree/compatible)") != NULL);
	CHECK(bp_gpio_soc_lookup("brcm,bcm2712") == NULL); /* the Pi 5's RP1 is another story */
	CHECK(bp_gpio_soc_lookup("raspberrypi,3-model-b") == NULL);
	CHECK(bp_gpio_soc_lookup("brcm,bcm2837") != NULL);
}

/* Big-endian cells, as a `ranges` property holds them. */
static size_t cells(uint8_t *out, const uint32_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		out[4 * i] = (uint8_t)(v[i] >> 24);
		out[4 * i + 1] = (uint8_t)(v[i] >> 16);
		out[4 * i + 2] = (uint8_t)(v[i] >> 8);
		out[4 * i + 3] = (uint8_t)v[i];
	}
	return 4 * n;
}

static void test_translate(void)
{
	/* bcm2837.dtsi: <0x7e000000 0x3f000000 0x1000000>, <0x40000000 0x40000000 0x1000> */
	static const uint32_t bcm2837[] = { 0x7e000000, 0x3f000000, 0x01000000,
					    0x40000000, 0x40000000, 0x00001000 };
	/* bcm2711.dtsi: two-cell parent addresses */
	static const uint32_t bcm2711[] = { 0x7e000000, 0x0, 0xfe000000, 0x01800000,
					    0x7c000000, 0x0, 0xfc000000, 0x02000000 };
	/* a parent above 4 GiB, to see the high cell used */
	static const uint32_t high[] = { 0x7e000000, 0x4, 0x7e000000, 0x01000000 };
	uint8_t r[64];
	uint64_t out = 0;
	size_t n;

	n = cells(r, bcm2837, 6);
	CHECK_INT(bp_gpio_dt_translate(r, n, 1, 1, 1, 0x7e200000, &out), 0);
	CHECK_INT(out, 0x3f200000);
	CHECK_INT(bp_gpio_dt_translate(r, n, 1, 1, 1, 0x7effffff, &out), 0);
	CHECK_INT(out, 0x3fffffff);
	CHECK_INT(bp_gpio_dt_translate(r, n, 1, 1, 1, 0x40000040, &out), 0);
	CHECK_INT(out, 0x40000040);
	/* one past the first window, and below every window */
	CHECK_INT(bp_gpio_dt_translate(r, n, 1, 1, 1, 0x7f000000, &out), -ERANGE);
	CHECK_INT(bp_gpio_dt_translate(r, n, 1, 1, 1, 0x10000000, &out), -ERANGE);
	/* read with the wrong cell counts, the length no longer divides */
	CHECK_INT(bp_gpio_dt_translate(r, n, 1, 2, 1, 0x7e200000, &out), -EINVAL);

	n = cells(r, bcm2711, 8);
	CHECK_INT(bp_gpio_dt_translate(r, n, 1, 2, 1, 0x7e200000, &out), 0);
	CHECK_INT(out, 0xfe200000);
	CHECK_INT(bp_gpio_dt_translate(r, n, 1, 2, 1, 0x7c000010, &out), 0);
	CHECK_INT(out, 0xfc000010);

	n = cells(r, high, 4);
	CHECK_INT(bp_gpio_dt_translate(r, n, 1, 2, 1, 0x7e200000, &out), 0);
	CHECK_INT(out, 0x47e200000ull);

	/* `ranges;` (sunxi): one to one */
	CHECK_INT(bp_gpio_dt_translate(r, 0, 1, 1, 1, 0x01c20800, &out), 0);
	CHECK_INT(out, 0x01c20800);
	/* cell counts the kernel would never give a simple-bus */
	CHECK_INT(bp_gpio_dt_translate(r, 12, 3, 1, 1, 0, &out), -EINVAL);
	CHECK_INT(bp_gpio_dt_translate(r, 12, 0, 1, 1, 0, &out), -EINVAL);
	CHECK_INT(bp_gpio_dt_translate(r, 12, 1, 1, 3, 0, &out), -EINVAL);
}

static void test_pins(void)
{
	const struct bp_gpio_soc_info *h3 = bp_gpio_soc_lookup("allwinner,sun8i-h3");
	const struct bp_gpio_soc_info *a20 = bp_gpio_soc_lookup("allwinner,sun7i-a20");
	const struct bp_gpio_soc_info *b37 = bp_gpio_soc_lookup("brcm,bcm2837");
	const struct bp_gpio_soc_info *b11 = bp_gpio_soc_lookup("brcm,bcm2711");
	char err[256], name[16];

	if (!h3 || !a20 || !b37 || !b11) {
		CHECK(!"SoC table rows missing");
		return;
	}
	CHECK_INT(bp_gpio_soc_pin_check(b37, 0, err, sizeof(err)), 0);
	CHECK_INT(bp_gpio_soc_pin_check(b37, 53, err, sizeof(err)), 0);
	CHECK_INT(bp_gpio_soc_pin_check(b37, 54, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "--method mmap: line 54: the BCM2837's pinctrl-bcm2835 has lines 0..53");
	CHECK_INT(bp_gpio_soc_pin_check(b11, 57, err, sizeof(err)), 0);
	CHECK_INT(bp_gpio_soc_pin_check(b11, 58, err, sizeof(err)), -EINVAL);

	CHECK_INT(bp_gpio_soc_pin_check(h3, 0, err, sizeof(err)), 0);       /* PA0 */
	CHECK_INT(bp_gpio_soc_pin_check(h3, 21, err, sizeof(err)), 0);      /* PA21 */
	CHECK_INT(bp_gpio_soc_pin_check(h3, 22, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "--method mmap: line 22 is PA22: port A of the Allwinner H3 has pins 0..21");
	CHECK_INT(bp_gpio_soc_pin_check(h3, 32, err, sizeof(err)), -EINVAL); /* PB0 */
	CHECK_STR(err, "--method mmap: line 32 is PB0: the Allwinner H3 has no port B");
	CHECK_INT(bp_gpio_soc_pin_check(h3, 6 * 32 + 7, err, sizeof(err)), 0);  /* PG7 */
	CHECK_INT(bp_gpio_soc_pin_check(h3, 6 * 32 + 13, err, sizeof(err)), 0); /* PG13 */
	CHECK_INT(bp_gpio_soc_pin_check(h3, 6 * 32 + 14, err, sizeof(err)), -EINVAL);
	/* port L (R_PIO) is another chip; as a line of the main one it is out of range */
	CHECK_INT(bp_gpio_soc_pin_check(h3, 11 * 32 + 10, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "--method mmap: line 362: the Allwinner H3's 1c20800.pinctrl has lines "
		  "0..223");

	CHECK_INT(bp_gpio_soc_pin_check(a20, 32 + 23, err, sizeof(err)), 0);   /* PB23 */
	CHECK_INT(bp_gpio_soc_pin_check(a20, 8 * 32 + 21, err, sizeof(err)), 0); /* PI21 */
	CHECK_INT(bp_gpio_soc_pin_check(a20, 8 * 32 + 22, err, sizeof(err)), -EINVAL);
	CHECK_INT(bp_gpio_soc_pin_check(a20, 288, err, sizeof(err)), -EINVAL);

	bp_gpio_soc_pin_name(h3, 0, name, sizeof(name));
	CHECK_STR(name, "PA0");
	bp_gpio_soc_pin_name(h3, 6 * 32 + 7, name, sizeof(name));
	CHECK_STR(name, "PG7");
	bp_gpio_soc_pin_name(a20, 8 * 32 + 21, name, sizeof(name));
	CHECK_STR(name, "PI21");
	bp_gpio_soc_pin_name(b37, 14, name, sizeof(name));
	CHECK_STR(name, "GPIO14");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s FIXTURES_DIR\n", argv[0]);
		return 2;
	}
	fixtures = argv[1];
	test_boards();
	test_unknown();
	test_translate();
	test_pins();
	return tap_done();
}
