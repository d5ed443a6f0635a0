/*
 * The register maps (gpio_regs_bcm.c, gpio_regs_sunxi.c) on a plain array, then the mmap
 * method itself on a file: a throwaway root whose proc/ and sys/ are a fixture device tree
 * and whose dev/gpiomem or dev/mem is a regular file the method maps MAP_SHARED, so every
 * store it makes lands where the test can read it back (pread on the same page cache).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpio/gpio_method.h"
#include "gpio/gpio_regs_bcm.h"
#include "gpio/gpio_regs_sunxi.h"
#include "tap.h"

static const char *fixtures;

/* ---- the register maps on an array ---------------------------------------------------- */

#define WORDS 0x400

/* Every word but the ones listed still holds its fill pattern. */
static int untouched(const uint32_t *r, const uint32_t *before, const unsigned *except,
		     size_t n)
{
	for (unsigned w = 0; w < WORDS; w++) {
		int skip = 0;

		for (size_t i = 0; i < n; i++)
			skip |= except[i] == w * 4;
		if (!skip && r[w] != before[w]) {
			printf("#   word at 0x%03x changed: 0x%08x -> 0x%08x\n", w * 4, before[w],
			       r[w]);
			return 0;
		}
	}
	return 1;
}

static void fill(uint32_t *r, uint32_t *copy)
{
	for (unsigned w = 0; w < WORDS; w++)
		r[w] = copy[w] = 0x9e3779b9u * (w + 1);
}

static void test_bcm_map(void)
{
	static const struct {
		unsigned pin, fsel_off, shift, set_off, clr_off, lev_off, bit;
	} pins[] = {
		{ 0, 0x00, 0, 0x1c, 0x28, 0x34, 0 },
		{ 9, 0x00, 27, 0x1c, 0x28, 0x34, 9 },
		{ 10, 0x04, 0, 0x1c, 0x28, 0x34, 10 },
		{ 14, 0x04, 12, 0x1c, 0x28, 0x34, 14 },
		{ 20, 0x08, 0, 0x1c, 0x28, 0x34, 20 },
		{ 29, 0x08, 27, 0x1c, 0x28, 0x34, 29 },
		{ 31, 0x0c, 3, 0x1c, 0x28, 0x34, 31 },
		{ 32, 0x0c, 6, 0x20, 0x2c, 0x38, 0 },
		{ 40, 0x10, 0, 0x20, 0x2c, 0x38, 8 },
		{ 49, 0x10, 27, 0x20, 0x2c, 0x38, 17 },
		{ 53, 0x14, 9, 0x20, 0x2c, 0x38, 21 },
		{ 57, 0x14, 21, 0x20, 0x2c, 0x38, 25 }, /* the BCM2711's last */
	};
	static uint32_t r[WORDS], before[WORDS];

	for (size_t i = 0; i < sizeof(pins) / sizeof(pins[0]); i++) {
		struct bp_gpio_bcm_pin p;
		unsigned f = pins[i].fsel_off, s = pins[i].set_off, c = pins[i].clr_off;
		uint32_t fsel;

		printf("# BCM GPIO%u\n", pins[i].pin);
		fill(r, before);
		bp_gpio_bcm_pin_init(&p, r, pins[i].pin);
		/* the function field: set to output, the word's other nine pins kept */
		bp_gpio_bcm_set_function(&p, BP_BCM_FSEL_OUTPUT);
		fsel = (before[f / 4] & ~(7u << pins[i].shift)) | 1u << pins[i].shift;
		CHECK_INT(r[f / 4], fsel);
		CHECK_INT(bp_gpio_bcm_function(&p), 1);
		CHECK(untouched(r, before, (unsigned[]){ f }, 1));
		bp_gpio_bcm_set_function(&p, 4); /* ALT0 */
		CHECK_INT(bp_gpio_bcm_function(&p), 4);
		CHECK_INT(r[f / 4] & ~(7u << pins[i].shift), before[f / 4] & ~(7u << pins[i].shift));
		/* a write is one store of the pin's bit alone */
		bp_gpio_bcm_write(&p, 1);
		CHECK_INT(r[s / 4], 1u << pins[i].bit);
		CHECK(untouched(r, before, (unsigned[]){ f, s }, 2));
		bp_gpio_bcm_write(&p, 0);
		CHECK_INT(r[c / 4], 1u << pins[i].bit);
		CHECK(untouched(r, before, (unsigned[]){ f, s, c }, 3));
		/* the level comes from GPLEV */
		r[pins[i].lev_off / 4] = 1u << pins[i].bit;
		CHECK_INT(bp_gpio_bcm_read(&p), 1);
		r[pins[i].lev_off / 4] = ~(1u << pins[i].bit);
		CHECK_INT(bp_gpio_bcm_read(&p), 0);
	}
}

static void test_sunxi_map(void)
{
	static const struct {
		const char *name;
		unsigned port, pin, cfg_off, shift, dat_off;
	} pins[] = {
		{ "PA0", 0, 0, 0x00, 0, 0x10 },
		{ "PA7", 0, 7, 0x00, 28, 0x10 },
		{ "PA8", 0, 8, 0x04, 0, 0x10 },
		{ "PA15", 0, 15, 0x04, 28, 0x10 },
		{ "PA16", 0, 16, 0x08, 0, 0x10 },
		{ "PA24", 0, 24, 0x0c, 0, 0x10 },
		{ "PB0", 1, 0, 0x24, 0, 0x34 },
		{ "PC31", 2, 31, 0x48 + 0x0c, 28, 0x48 + 0x10 },
		{ "PG7", 6, 7, 0xd8, 28, 0xe8 },
		{ "PI21", 8, 21, 0x120 + 0x08, 20, 0x130 },
	};
	static uint32_t r[WORDS], before[WORDS];

	for (size_t i = 0; i < sizeof(pins) / sizeof(pins[0]); i++) {
		struct bp_gpio_sunxi_pin p;
		unsigned c = pins[i].cfg_off, d = pins[i].dat_off;
		uint32_t bit = 1u << pins[i].pin;

		printf("# sunxi %s\n", pins[i].name);
		fill(r, before);
		bp_gpio_sunxi_pin_init(&p, r, pins[i].port, pins[i].pin);
		bp_gpio_sunxi_set_function(&p, BP_SUNXI_FN_OUTPUT);
		CHECK_INT(r[c / 4], (before[c / 4] & ~(0xfu << pins[i].shift)) |
				    1u << pins[i].shift);
		CHECK_INT(bp_gpio_sunxi_function(&p), 1);
		CHECK(untouched(r, before, (unsigned[]){ c }, 1));
		/* read-modify-write: the port's other 31 bits come back as they were read */
		bp_gpio_sunxi_write(&p, 1);
		CHECK_INT(r[d / 4], before[d / 4] | bit);
		bp_gpio_sunxi_write(&p, 0);
		CHECK_INT(r[d / 4], before[d / 4] & ~bit);
		CHECK(untouched(r, before, (unsigned[]){ c, d }, 2));
		CHECK_INT(bp_gpio_sunxi_read(&p), 0);
		r[d / 4] = bit;
		CHECK_INT(bp_gpio_sunxi_read(&p), 1);
	}
}

/* ---- the method on a file ------------------------------------------------------------ */

struct rig {
	char root[256];
	char dev[300]; /* the register file */
	int fd;
};

/* root/proc and root/sys lead to the fixture; root/dev/NAME is a file of size bytes. */
static int rig_up(struct rig *g, const char *tree, const char *devname, uint64_t size)
{
	char path[4096], target[4096];

	snprintf(g->root, sizeof(g->root), "%s/bp-gpio-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(g->root))
		return -1;
	for (int i = 0; i < 2; i++) {
		const char *d = i ? "sys" : "proc";

		snprintf(target, sizeof(target), "%s/%s/%s", fixtures, tree, d);
		snprintf(path, sizeof(path), "%s/%s", g->root, d);
		if (access(target, F_OK) == 0 && symlink(target, path) < 0)
			return -1;
	}
	snprintf(path, sizeof(path), "%s/dev", g->root);
	mkdir(path, 0755);
	snprintf(g->dev, sizeof(g->dev), "%s/dev/%s", g->root, devname);
	g->fd = open(g->dev, O_RDWR | O_CREAT | O_TRUNC, 0600);
	/* sparse: /dev/mem's file reaches the block's physical address, 4 GiB on a BCM2711 */
	if (g->fd < 0 || ftruncate(g->fd, (off_t)size) < 0)
		return -1;
	return 0;
}

static void rig_down(struct rig *g)
{
	char path[4096];

	close(g->fd);
	unlink(g->dev);
	snprintf(path, sizeof(path), "%s/dev", g->root);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/proc", g->root);
	unlink(path);
	snprintf(path, sizeof(path), "%s/sys", g->root);
	unlink(path);
	rmdir(g->root);
}

static uint32_t reg(struct rig *g, uint64_t off)
{
	uint32_t v = 0xdeadbeef;

	if (pread(g->fd, &v, 4, (off_t)off) != 4)
		printf("#   pread at 0x%llx failed\n", (unsigned long long)off);
	return v;
}

static void put(struct rig *g, uint64_t off, uint32_t v)
{
	if (pwrite(g->fd, &v, 4, (off_t)off) != 4)
		printf("#   pwrite at 0x%llx failed\n", (unsigned long long)off);
}

static struct bp_gpio_target target(struct rig *g, const char *label, unsigned line)
{
	return (struct bp_gpio_target){
		.chip_path = NULL, /* no character device in a fixture to ask */
		.chip_name = "gpiochip0",
		.chip_label = label,
		.chip_lines = 300,
		.line = line,
		.sysfs_base = -1,
		.root = g->root,
	};
}

/* Raspberry Pi 3 through /dev/gpiomem: offset 0 is the block. */
static void test_bcm_gpiomem(void)
{
	struct rig g;
	struct bp_gpio_target t;
	struct bp_gpio_line *l;
	const char *code = NULL;
	char err[512] = "";

	if (rig_up(&g, "dt-rpi3b", "gpiomem", 4096) < 0) {
		CHECK(!"rig for dt-rpi3b");
		return;
	}
	/* GPIO17: GPFSEL1 bits 21..23; its neighbours hold alternate functions */
	put(&g, 0x04, 0x3f03ffffu & ~(7u << 21));
	put(&g, 0x34, 1u << 17); /* the pin reads high when we take it */
	t = target(&g, "pinctrl-bcm2835", 17);
	l = bp_gpio_mmap.open(&t, err, sizeof(err), &code);
	CHECK(l != NULL);
	if (!l) {
		printf("#   %s (%s)\n", err, code);
		rig_down(&g);
		return;
	}
	CHECK_STR(bp_gpio_mmap.describe(l), "BCM2837 registers at 0x3f200000 via /dev/gpiomem: "
		  "GPSET0/GPCLR0, one store per write (GPIO17)");
	CHECK_INT(reg(&g, 0x04), (0x3f03ffffu & ~(7u << 21)) | 1u << 21);
	/* the latch was set to the level found before the pin became an output */
	CHECK_INT(reg(&g, 0x1c), 1u << 17);
	put(&g, 0x1c, 0);
	CHECK_INT(bp_gpio_mmap.set(l, 0), 0);
	CHECK_INT(reg(&g, 0x28), 1u << 17);
	CHECK_INT(reg(&g, 0x1c), 0);
	CHECK_INT(bp_gpio_mmap.set(l, 1), 0);
	CHECK_INT(reg(&g, 0x1c), 1u << 17);
	/* get() reads GPLEV, never what set() last wrote (QEMU's orangepi-pc drops writes) */
	put(&g, 0x34, 0);
	CHECK_INT(bp_gpio_mmap.get(l), 0);
	put(&g, 0x34, 1u << 17);
	CHECK_INT(bp_gpio_mmap.get(l), 1);
	put(&g, 0x1c, 0);
	put(&g, 0x28, 0);
	bp_gpio_mmap.close(l);
	/* back to input with the neighbours untouched, the latch at the level found */
	CHECK_INT(reg(&g, 0x04), 0x3f03ffffu & ~(7u << 21));
	CHECK_INT(reg(&g, 0x1c), 1u << 17);
	CHECK_INT(reg(&g, 0x28), 0);

	/* GPIO53: the second bank, GPFSEL5 bits 9..11 */
	put(&g, 0x14, 0);
	put(&g, 0x38, 0);
	put(&g, 0x20, 0);
	put(&g, 0x2c, 0);
	t = target(&g, "pinctrl-bcm2835", 53);
	l = bp_gpio_mmap.open(&t, err, sizeof(err), &code);
	CHECK(l != NULL);
	if (l) {
		CHECK_INT(reg(&g, 0x14), 1u << 9);
		CHECK_INT(reg(&g, 0x2c), 1u << 21); /* found low: the latch cleared */
		bp_gpio_mmap.set(l, 1);
		CHECK_INT(reg(&g, 0x20), 1u << 21);
		CHECK_INT(reg(&g, 0x1c), 1u << 17); /* bank 0 left alone */
		CHECK(strstr(bp_gpio_mmap.describe(l), "GPSET1/GPCLR1") != NULL);
		bp_gpio_mmap.close(l);
		CHECK_INT(reg(&g, 0x14), 0);
	}

	/* GPIO14 is the UART's TX (ALT0) on a Pi: refused unless --force, then restored */
	put(&g, 0x04, 4u << 12);
	t = target(&g, "pinctrl-bcm2835", 14);
	l = bp_gpio_mmap.open(&t, err, sizeof(err), &code);
	CHECK(l == NULL);
	CHECK_STR(code, "line-busy");
	CHECK_STR(err, "line 14 of gpiochip0 is muxed to a peripheral (ALT0 in GPFSEL1 of the "
		  "BCM2837), not GPIO (--force to take it)");
	CHECK_INT(reg(&g, 0x04), 4u << 12);
	t.force = true;
	l = bp_gpio_mmap.open(&t, err, sizeof(err), &code);
	CHECK(l != NULL);
	if (l) {
		CHECK_INT(reg(&g, 0x04), 1u << 12);
		bp_gpio_mmap.close(l);
		CHECK_INT(reg(&g, 0x04), 4u << 12);
	}

	/* another chip of the same board (the firmware's expander) is not these registers */
	t = target(&g, "raspberrypi-exp-gpio", 2);
	t.chip_name = "gpiochip1";
	CHECK(bp_gpio_mmap.open(&t, err, sizeof(err), &code) == NULL);
	CHECK_STR(code, "unsupported");
	CHECK_STR(err, "--method mmap: gpiochip1 \"raspberrypi-exp-gpio\" is not the BCM2837's "
		  "main GPIO controller (pinctrl-bcm2835): boardperf writes only that one's "
		  "registers");
	/* past the chip's lines */
	t = target(&g, "pinctrl-bcm2835", 54);
	CHECK(bp_gpio_mmap.open(&t, err, sizeof(err), &code) == NULL);
	CHECK_STR(code, "unsupported");
	/* a chip path that cannot be asked whether the line is free: refused, not guessed */
	t = target(&g, "pinctrl-bcm2835", 17);
	t.chip_path = "/dev/gpiochip0";
	CHECK(bp_gpio_mmap.open(&t, err, sizeof(err), &code) == NULL);
	CHECK_STR(code, "io");
	CHECK_STR(err, "--method mmap: cannot ask /dev/gpiochip0 whether line 17 is free: No "
		  "such file or directory");
	rig_down(&g);
}

/* Raspberry Pi 4 without /dev/gpiomem: /dev/mem at 0xfe200000, only with --allow-mmap. */
static void test_bcm2711_devmem(void)
{
	const uint64_t block = 0xfe200000;
	struct rig g;
	struct bp_gpio_target t;
	struct bp_gpio_line *l;
	const char *code = NULL;
	char err[512] = "";

	if (rig_up(&g, "dt-rpi4", "mem", block + 4096) < 0) {
		CHECK(!"rig for dt-rpi4");
		return;
	}
	t = target(&g, "pinctrl-bcm2711", 57);
	CHECK(bp_gpio_mmap.open(&t, err, sizeof(err), &code) == NULL);
	CHECK_STR(code, "unsupported");
	CHECK_STR(err, "--method mmap: no /dev/gpiomem here, and writing the BCM2711's registers "
		  "through /dev/mem needs root and --allow-mmap: pass --allow-mmap to use it");
	t.allow_mmap = true;
	l = bp_gpio_mmap.open(&t, err, sizeof(err), &code);
	CHECK(l != NULL);
	if (l) {
		CHECK_INT(reg(&g, block + 0x14), 1u << 21);
		bp_gpio_mmap.set(l, 1);
		CHECK_INT(reg(&g, block + 0x20), 1u << 25);
		bp_gpio_mmap.set(l, 0);
		CHECK_INT(reg(&g, block + 0x2c), 1u << 25);
		CHECK_STR(bp_gpio_mmap.describe(l), "BCM2711 registers at 0xfe200000 via /dev/mem: "
			  "GPSET1/GPCLR1, one store per write (GPIO57)");
		bp_gpio_mmap.close(l);
		CHECK_INT(reg(&g, block + 0x14), 0);
	}
	rig_down(&g);

	/* a /dev/mem that does not reach the block fails in open(), not with SIGBUS */
	if (rig_up(&g, "dt-rpi4", "mem", 4096) < 0) {
		CHECK(!"rig for short dev/mem");
		return;
	}
	t = target(&g, "pinctrl-bcm2711", 4);
	t.allow_mmap = true;
	CHECK(bp_gpio_mmap.open(&t, err, sizeof(err), &code) == NULL);
	CHECK_STR(code, "io");
	CHECK(strstr(err, "is a file of 4096 bytes, shorter than the registers at 0xfe200000"));
	rig_down(&g);
}

/* sunxi PIO through /dev/mem: the block is not page-aligned (0x01c20800 in page 0x01c20000). */
static void test_sunxi_devmem(const char *tree, const char *soc, unsigned line, unsigned cfg,
			      unsigned shift, unsigned dat)
{
	const uint64_t pio = 0x01c20800;
	struct rig g;
	struct bp_gpio_target t;
	struct bp_gpio_line *l;
	const char *code = NULL;
	char err[512] = "", want[256];
	uint32_t bit = 1u << (line % 32);

	printf("# %s line %u\n", tree, line);
	if (rig_up(&g, tree, "mem", 0x01c21000) < 0) {
		CHECK(!"rig for sunxi");
		return;
	}
	/* every pin of the word disabled (7), the H3's reset state; other port pins high */
	put(&g, pio + cfg, 0x77777777);
	put(&g, pio + dat, 0xa5a5a5a5u & ~bit);
	t = target(&g, "1c20800.pinctrl", line);
	t.allow_mmap = true;
	l = bp_gpio_mmap.open(&t, err, sizeof(err), &code);
	CHECK(l != NULL);
	if (!l) {
		printf("#   %s (%s)\n", err, code);
		rig_down(&g);
		return;
	}
	CHECK_INT(reg(&g, pio + cfg), (0x77777777u & ~(0xfu << shift)) | 1u << shift);
	CHECK_INT(bp_gpio_mmap.set(l, 1), 0);
	CHECK_INT(reg(&g, pio + dat), 0xa5a5a5a5u | bit);
	CHECK_INT(bp_gpio_mmap.set(l, 0), 0);
	CHECK_INT(reg(&g, pio + dat), 0xa5a5a5a5u & ~bit);
	/* get() reads DAT: a write the hardware dropped shows as a mismatch */
	bp_gpio_mmap.set(l, 1);
	put(&g, pio + dat, 0);
	CHECK_INT(bp_gpio_mmap.get(l), 0);
	snprintf(want, sizeof(want), "%s PIO at 0x01c20800 via /dev/mem: P%c_DAT "
		 "read-modify-write per write, no set/clear registers (P%c%u)", soc,
		 'A' + line / 32, 'A' + line / 32, line % 32);
	CHECK_STR(bp_gpio_mmap.describe(l), want);
	put(&g, pio + dat, 0xa5a5a5a5u | bit);
	bp_gpio_mmap.close(l);
	CHECK_INT(reg(&g, pio + cfg), 0x77777777);
	CHECK_INT(reg(&g, pio + dat), 0xa5a5a5a5u & ~bit); /* the level it was found at */
	rig_down(&g);
}

static void test_sunxi_refusals(void)
{
	struct rig g;
	struct bp_gpio_target t;
	const char *code = NULL;
	char err[512] = "";

	if (rig_up(&g, "dt-orangepi-pc", "mem", 0x01c21000) < 0) {
		CHECK(!"rig for refusals");
		return;
	}
	/* port L is the R_PIO, a chip of its own */
	t = target(&g, "1f02c00.pinctrl", 10);
	t.chip_name = "gpiochip1";
	t.allow_mmap = true;
	CHECK(bp_gpio_mmap.open(&t, err, sizeof(err), &code) == NULL);
	CHECK_STR(code, "unsupported");
	CHECK_STR(err, "--method mmap: gpiochip1 \"1f02c00.pinctrl\" is not the Allwinner H3's "
		  "main GPIO controller (1c20800.pinctrl): boardperf writes only that one's "
		  "registers");
	/* PB0: the H3 has no port B */
	t = target(&g, "1c20800.pinctrl", 32);
	t.allow_mmap = true;
	CHECK(bp_gpio_mmap.open(&t, err, sizeof(err), &code) == NULL);
	CHECK_STR(err, "--method mmap: line 32 is PB0: the Allwinner H3 has no port B");
	/* PA4 is UART0's TX (function 2): the console, refused */
	put(&g, 0x01c20800, 0x2u << 16);
	t = target(&g, "1c20800.pinctrl", 4);
	t.allow_mmap = true;
	CHECK(bp_gpio_mmap.open(&t, err, sizeof(err), &code) == NULL);
	CHECK_STR(code, "line-busy");
	CHECK_STR(err, "line 4 of gpiochip0 is muxed to a peripheral (function 2 in PA_CFG0 of "
		  "the Allwinner H3), not GPIO (--force to take it)");
	CHECK_INT(reg(&g, 0x01c20800), 0x2u << 16);
	/* gpiomem is a Raspberry Pi device: not used on sunxi even where such a file exists */
	rig_down(&g);
	if (rig_up(&g, "dt-orangepi-pc", "gpiomem", 4096) < 0) {
		CHECK(!"rig for sunxi gpiomem");
		return;
	}
	t = target(&g, "1c20800.pinctrl", 0);
	CHECK(bp_gpio_mmap.open(&t, err, sizeof(err), &code) == NULL);
	CHECK_STR(err, "--method mmap: neither /dev/gpiomem nor /dev/mem exists (a kernel "
		  "without CONFIG_DEVMEM)");
	rig_down(&g);

	/* QEMU's virt: refused with the SoC's name */
	if (rig_up(&g, "dt-virt", "mem", 4096) < 0) {
		CHECK(!"rig for virt");
		return;
	}
	t = target(&g, "9030000.pl061", 3);
	t.allow_mmap = true;
	CHECK(bp_gpio_mmap.open(&t, err, sizeof(err), &code) == NULL);
	CHECK_STR(code, "unsupported");
	CHECK_STR(err, "--method mmap: SoC 'linux,dummy-virt' is not one boardperf knows "
		  "(BCM2835/6/7, BCM2711, Allwinner H3/H2+, A20)");
	rig_down(&g);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s FIXTURES_DIR\n", argv[0]);
		return 2;
	}
	fixtures = argv[1];
	test_bcm_map();
	test_sunxi_map();
	test_bcm_gpiomem();
	test_bcm2711_devmem();
	/* PA0 on an Orange Pi Zero (H2+), PG7 on an Orange Pi PC (H3), PI21 on a Cubietruck */
	test_sunxi_devmem("dt-orangepi-zero", "Allwinner H2+", 0, 0x00, 0, 0x10);
	test_sunxi_devmem("dt-orangepi-pc", "Allwinner H3", 6 * 32 + 7, 0xd8, 28, 0xe8);
	test_sunxi_devmem("dt-cubietruck", "Allwinner A20", 8 * 32 + 21, 0x128, 20, 0x130);
	test_sunxi_refusals();
	return tap_done();
}
