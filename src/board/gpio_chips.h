/*
 * The GPIO chips of a machine and their lines, as `boardperf gpio --list`, `info` and the
 * command's --chip/--line resolution see them. The list comes from /sys/bus/gpio/devices
 * (present whenever the kernel has gpiolib, CONFIG_GPIOLIB); each chip's label and line
 * count from its character device (GPIO_GET_CHIPINFO_IOCTL), or, where that cannot be
 * opened (a fixture tree, no permission), from the sysfs class directory of the chip
 * (/sys/class/gpio/gpiochipBASE: label, ngpio), which also gives the base the deprecated
 * sysfs numbering starts from. Everything is read below a root ("" or "/" on a board, a
 * fixture tree in unit tests).
 */
#ifndef BP_BOARD_GPIO_CHIPS_H
#define BP_BOARD_GPIO_CHIPS_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

struct bp_gpio_chip {
	char name[32];   /* "gpiochip0" */
	char path[48];   /* "/dev/gpiochip0", inside the root */
	char label[64];  /* "pinctrl-bcm2835"; "" when unknown */
	unsigned lines;  /* 0 when unknown */
	int sysfs_base;  /* first number in /sys/class/gpio, -1 when the kernel has no sysfs GPIO */
	bool chardev;    /* the character device answered */
};

struct bp_gpio_chips {
	bool bus;        /* /sys/bus/gpio exists: the kernel has gpiolib */
	int n;
	struct bp_gpio_chip *v;
};

/* Every chip, in number order (gpiochip2 before gpiochip10). 0 or -ENOMEM. */
int bp_gpio_chips_read(const char *root, struct bp_gpio_chips *out);
void bp_gpio_chips_free(struct bp_gpio_chips *c);

/*
 * 0 when there is a chip; else -ENODEV with the one-line reason: "no GPIO chips: this
 * kernel has no GPIO support (CONFIG_GPIOLIB)" without /sys/bus/gpio, "no GPIO chips
 * found" with it.
 */
int bp_gpio_chips_require(const struct bp_gpio_chips *c, char *err, size_t errlen);

/* "gpiochip0 \"pinctrl-bcm2835\" 54 lines" (what error lines and `info` show). */
void bp_gpio_chip_describe(const struct bp_gpio_chip *c, char *buf, size_t len);

/*
 * The chip --chip names: its name ("gpiochip0"), its path ("/dev/gpiochip0") or its label.
 * NULL with "no GPIO chip 'X' (chips: gpiochip0 \"...\" 54 lines, ...)" in err.
 */
const struct bp_gpio_chip *bp_gpio_chip_find(const struct bp_gpio_chips *c, const char *arg,
					     char *err, size_t errlen);

/* The root as the sysfs readers take it: "/" for "" or NULL. */
const char *bp_gpio_root(const char *root);

/*
 * The chips in short for `info` (env.inventory.gpio): [{"name", "label", "lines"}], []
 * without GPIO. NULL when out of memory. Here, not in gpio/, so that the inventory never
 * calls up into a test: gpio/ builds on board/, not the other way round.
 */
json_t *bp_gpio_inventory_json(const char *root);

#endif
