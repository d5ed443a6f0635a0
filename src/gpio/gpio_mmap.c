/*
 * --method mmap: the SoC's GPIO registers mapped into the process, written with plain
 * stores, as wiringPi (Raspberry Pi) and wiringOP (Orange Pi) do. Its figure is the one to
 * set beside their digitalWrite loop.
 *
 * The mapping comes from /dev/gpiomem where the kernel has it (the Raspberry Pi kernel's
 * bcm2835-gpiomem: offset 0 is the GPIO block, group gpio, no root) and otherwise from
 * /dev/mem (root, --allow-mmap), at the page holding the block. Both are opened below the
 * target's root, so the unit tests map a plain file of the same layout (MAP_SHARED) and
 * check every register the method writes.
 *
 * Nothing in the kernel arbitrates these stores, so open() refuses what another owner has:
 * a line the character device reports in use, and a pin muxed to a peripheral (a UART's
 * TX, say: the kernel's pinctrl does not mark those used). --force overrides both.
 */
#include "gpio/gpio_method.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/gpio.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "board/sysfs.h"
#include "gpio/gpio_lines.h"
#include "gpio/gpio_regs_bcm.h"
#include "gpio/gpio_regs_sunxi.h"
#include "gpio/gpio_soc.h"

struct bp_gpio_line {
	enum bp_gpio_soc_family family;
	union {
		struct bp_gpio_bcm_pin bcm;
		struct bp_gpio_sunxi_pin sunxi;
	} pin;
	unsigned saved_fn; /* the function select open() found */
	int saved_value;   /* the level it found, put back before the function */
	void *map;
	size_t map_len;
	int fd;
	char desc[192];
};

#define FAIL(c, ...) do { snprintf(err, errlen, __VA_ARGS__); *code = (c); goto fail; } while (0)

/* The chip's label as the SoC's main controller has it (sunxi: "<unit address>.<node>"). */
static int label_matches(const struct bp_gpio_soc_info *s, const char *label)
{
	if (!label)
		return 0;
	if (s->family == BP_GPIO_SOC_SUNXI)
		/* the node was "pio@01c20800" before Linux 4.15, "pinctrl@1c20800" since */
		return strncmp(label, "1c20800.", 8) == 0;
	return strcmp(label, s->chip_label) == 0;
}

/*
 * The character device's view of the line: 1 (consumer copied) when the kernel or another
 * process holds it, 0 when free, -errno when the chip cannot be asked.
 */
static int line_in_use(const char *root, const char *chip_path, unsigned line, char *consumer,
		       size_t len)
{
	struct bp_gpio_line_info li;
	bool v1 = false;
	char path[4096];
	int fd, ret;

	if (bp_sysfs_path(path, sizeof(path), root, "%s", chip_path) < 0)
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = bp_gpio_line_info(fd, line, &li, &v1);
	close(fd);
	if (ret)
		return ret;
	bp_strlcpy(consumer, li.consumer, len);
	return li.used;
}

/* Functions a free GPIO pin can be in: input, output, and (sunxi) disabled. */
static int function_is_gpio(enum bp_gpio_soc_family f, unsigned fn)
{
	if (f == BP_GPIO_SOC_BCM)
		return fn == BP_BCM_FSEL_INPUT || fn == BP_BCM_FSEL_OUTPUT;
	return fn == BP_SUNXI_FN_INPUT || fn == BP_SUNXI_FN_OUTPUT || fn == 7;
}

/* "ALT5 in GPFSEL1", "function 2 in PA_CFG0": a non-GPIO function as the manuals name it. */
static void function_name(enum bp_gpio_soc_family f, unsigned fn, unsigned line, char *buf,
			  size_t len)
{
	/* GPFSEL codes 2..7 are ALT5, ALT4, ALT0, ALT1, ALT2, ALT3 (BCM2835 ARM Peripherals 6.1) */
	static const char alt[8] = { 0, 0, 5, 4, 0, 1, 2, 3 };

	if (f == BP_GPIO_SOC_BCM)
		snprintf(buf, len, "ALT%d in GPFSEL%u", alt[fn & 7], line / 10);
	else
		snprintf(buf, len, "function %u in P%c_CFG%u", fn, 'A' + line / 32, line % 32 / 8);
}

static unsigned pin_function(const struct bp_gpio_line *l)
{
	return l->family == BP_GPIO_SOC_BCM ? bp_gpio_bcm_function(&l->pin.bcm)
					    : bp_gpio_sunxi_function(&l->pin.sunxi);
}

static void pin_set_function(const struct bp_gpio_line *l, unsigned fn)
{
	if (l->family == BP_GPIO_SOC_BCM)
		bp_gpio_bcm_set_function(&l->pin.bcm, fn);
	else
		bp_gpio_sunxi_set_function(&l->pin.sunxi, fn);
}

static int mmap_set(struct bp_gpio_line *l, int value)
{
	if (l->family == BP_GPIO_SOC_BCM)
		bp_gpio_bcm_write(&l->pin.bcm, value);
	else
		bp_gpio_sunxi_write(&l->pin.sunxi, value);
	return 0;
}

static int mmap_get(struct bp_gpio_line *l)
{
	return l->family == BP_GPIO_SOC_BCM ? bp_gpio_bcm_read(&l->pin.bcm)
					    : bp_gpio_sunxi_read(&l->pin.sunxi);
}

/* Which device to map and where: /dev/gpiomem (offset 0) on a Pi kernel, else /dev/mem. */
static int choose_device(const struct bp_gpio_target *t, const struct bp_gpio_soc *soc,
			 char *path, size_t len, const char **dev, off_t *page, size_t *inner,
			 char *err, size_t errlen)
{
	/* bcm2835-gpiomem exists only on Broadcom parts; a vendor sunxi kernel's is unknown */
	if (soc->info->family == BP_GPIO_SOC_BCM &&
	    bp_sysfs_exists(t->root, "/dev/gpiomem")) {
		*dev = "/dev/gpiomem";
		*page = 0;
		*inner = 0;
		return bp_sysfs_path(path, len, t->root, "%s", *dev);
	}
	*dev = "/dev/mem";
	if (!bp_sysfs_exists(t->root, "/dev/mem")) {
		snprintf(err, errlen, "--method mmap: neither /dev/gpiomem nor /dev/mem exists "
			 "(a kernel without CONFIG_DEVMEM)");
		return -ENOENT;
	}
	if (!t->allow_mmap) {
		snprintf(err, errlen, "--method mmap: no /dev/gpiomem here, and writing the %s's "
			 "registers through /dev/mem needs root and --allow-mmap: pass --allow-mmap "
			 "to use it", soc->info->name);
		return -EPERM;
	}
	*page = (off_t)(soc->phys & ~(uint64_t)(sysconf(_SC_PAGESIZE) - 1));
	*inner = (size_t)(soc->phys - (uint64_t)*page);
	return bp_sysfs_path(path, len, t->root, "%s", *dev);
}

/* Refusals before anything is opened: the chip, the pin, and who else has the line. */
static int check_target(const struct bp_gpio_target *t, const struct bp_gpio_soc *soc,
			char *err, size_t errlen, const char **code)
{
	const struct bp_gpio_soc_info *s = soc->info;
	char consumer[GPIO_MAX_NAME_SIZE + 1] = "";
	int used;

	*code = "unsupported";
	if (!label_matches(s, t->chip_label)) {
		snprintf(err, errlen, "--method mmap: %s \"%s\" is not the %s's main GPIO "
			 "controller (%s): boardperf writes only that one's registers",
			 t->chip_name ? t->chip_name : "the chip",
			 t->chip_label ? t->chip_label : "", s->name, s->chip_label);
		return -EINVAL;
	}
	if (bp_gpio_soc_pin_check(s, t->line, err, errlen) < 0)
		return -EINVAL;
	/* no chip path: a fixture test with no character device to ask */
	if (t->force || !t->chip_path || !*t->chip_path)
		return 0;
	used = line_in_use(t->root, t->chip_path, t->line, consumer, sizeof(consumer));
	if (used < 0) {
		*code = used == -EACCES || used == -EPERM ? "permission" : "io";
		snprintf(err, errlen, "--method mmap: cannot ask %s whether line %u is free: %s",
			 t->chip_path, t->line, strerror(-used));
		return used;
	}
	if (used) {
		*code = "line-busy";
		snprintf(err, errlen, "line %u of %s is in use by \"%s\" (--force to take it)",
			 t->line, t->chip_name ? t->chip_name : t->chip_path,
			 consumer[0] ? consumer : "kernel");
		return -EBUSY;
	}
	return 0;
}

/* Opens and maps the device; the pin's registers are then at l->map + inner. */
static int map_block(struct bp_gpio_line *l, const char *path, const char *dev, off_t page,
		     size_t inner, size_t block, char *err, size_t errlen, const char **code)
{
	long pagesz = sysconf(_SC_PAGESIZE);
	struct stat st;

	l->fd = open(path, O_RDWR | O_SYNC | O_CLOEXEC);
	if (l->fd < 0) {
		int e = errno;

		*code = e == EACCES || e == EPERM ? "permission" : "io";
		snprintf(err, errlen, "--method mmap: open %s: %s%s", dev, strerror(e),
			 e != EACCES && e != EPERM ? "" : strcmp(dev, "/dev/mem") == 0 ?
			 " (needs root)" : " (needs root or the group that owns it, gpio)");
		return -e;
	}
	l->map_len = (inner + block + (size_t)pagesz - 1) & ~((size_t)pagesz - 1);
	/* a plain file shorter than the mapping would fault on the first store, not fail here */
	if (fstat(l->fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    (uint64_t)st.st_size < (uint64_t)page + l->map_len) {
		*code = "io";
		snprintf(err, errlen, "--method mmap: %s is a file of %jd bytes, shorter than the "
			 "registers at 0x%jx", path, (intmax_t)st.st_size, (intmax_t)page);
		return -EINVAL;
	}
	l->map = mmap(NULL, l->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, l->fd, page);
	if (l->map == MAP_FAILED) {
		int e = errno;

		l->map = NULL;
		*code = e == EPERM || e == EACCES ? "permission" : "io";
		/* CONFIG_IO_STRICT_DEVMEM (Debian's kernels) refuses a driver's registers */
		snprintf(err, errlen, "--method mmap: mmap %s at 0x%jx: %s%s", dev, (intmax_t)page,
			 strerror(e), e == EPERM ? " (the kernel forbids mapping registers a driver "
			 "owns, CONFIG_IO_STRICT_DEVMEM: boot with iomem=relaxed)" : "");
		return -e;
	}
	return 0;
}

static void describe_line(struct bp_gpio_line *l, const struct bp_gpio_soc *soc, unsigned line,
			  const char *dev)
{
	const struct bp_gpio_soc_info *s = soc->info;
	char name[16];

	bp_gpio_soc_pin_name(s, line, name, sizeof(name));
	if (s->family == BP_GPIO_SOC_BCM)
		snprintf(l->desc, sizeof(l->desc), "%s registers at 0x%08" PRIx64 " via %s: "
			 "GPSET%u/GPCLR%u, one store per write (%s)", s->name, soc->phys, dev,
			 line / 32, line / 32, name);
	else
		snprintf(l->desc, sizeof(l->desc), "%s PIO at 0x%08" PRIx64 " via %s: P%c_DAT "
			 "read-modify-write per write, no set/clear registers (%s)", s->name,
			 soc->phys, dev, name[1], name);
}

static struct bp_gpio_line *mmap_open(const struct bp_gpio_target *t, char *err, size_t errlen,
				      const char **code)
{
	struct bp_gpio_line *l = NULL;
	struct bp_gpio_soc soc;
	char path[4096];
	const char *dev;
	size_t inner;
	off_t page;
	int ret;

	*code = "unsupported";
	if (bp_gpio_soc_detect(t->root, &soc, err, errlen) < 0)
		return NULL;
	if (check_target(t, &soc, err, errlen, code) < 0)
		return NULL;
	ret = choose_device(t, &soc, path, sizeof(path), &dev, &page, &inner, err, errlen);
	if (ret < 0) {
		*code = "unsupported";
		return NULL;
	}
	l = calloc(1, sizeof(*l));
	if (!l)
		FAIL("io", "--method mmap: out of memory");
	l->fd = -1;
	l->family = soc.info->family;
	if (map_block(l, path, dev, page, inner, soc.info->block_len, err, errlen, code) < 0)
		goto fail;
	{
		volatile uint32_t *regs = (volatile uint32_t *)((char *)l->map + inner);

		if (l->family == BP_GPIO_SOC_BCM)
			bp_gpio_bcm_pin_init(&l->pin.bcm, regs, t->line);
		else
			bp_gpio_sunxi_pin_init(&l->pin.sunxi, regs, t->line / 32, t->line % 32);
	}
	l->saved_fn = pin_function(l);
	l->saved_value = mmap_get(l);
	if (!t->force && !function_is_gpio(l->family, l->saved_fn)) {
		char fn[48];

		function_name(l->family, l->saved_fn, t->line, fn, sizeof(fn));
		FAIL("line-busy", "line %u of %s is muxed to a peripheral (%s of the %s), not "
		     "GPIO (--force to take it)", t->line, t->chip_name ? t->chip_name : "the chip",
		     fn, soc.info->name);
	}
	/* the latch first, then the direction: the pin comes up at the level it had */
	mmap_set(l, l->saved_value);
	pin_set_function(l, l->family == BP_GPIO_SOC_BCM ? BP_BCM_FSEL_OUTPUT : BP_SUNXI_FN_OUTPUT);
	describe_line(l, &soc, t->line, dev);
	return l;
fail:
	if (l) {
		if (l->map)
			munmap(l->map, l->map_len);
		if (l->fd >= 0)
			close(l->fd);
		free(l);
	}
	return NULL;
}

static void mmap_close(struct bp_gpio_line *l)
{
	if (!l)
		return;
	/* the level, then the function: an output comes back at its level without a glitch */
	mmap_set(l, l->saved_value);
	pin_set_function(l, l->saved_fn);
	munmap(l->map, l->map_len);
	close(l->fd);
	free(l);
}

static const char *mmap_describe(const struct bp_gpio_line *l)
{
	return l->desc;
}

const struct bp_gpio_method bp_gpio_mmap = {
	.name = "mmap",
	.open = mmap_open,
	.set = mmap_set,
	.get = mmap_get,
	.close = mmap_close,
	.describe = mmap_describe,
};
