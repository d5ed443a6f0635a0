/*
 * What the kernel says about one line of a chip: its name, its consumer (the driver or
 * program holding it), its direction. Read with GPIO_V2_GET_LINEINFO_IOCTL, or with the
 * v1 GPIO_GET_LINEINFO_IOCTL on kernels before 5.10 (which answer the v2 call with ENOTTY
 * or EINVAL); with no character device (a fixture tree), from sysfs, which knows only the
 * lines it exported.
 */
#ifndef BP_GPIO_GPIO_LINES_H
#define BP_GPIO_GPIO_LINES_H

#include <stdbool.h>
#include <stddef.h>

#include "board/gpio_chips.h"

struct bp_gpio_line_info {
	unsigned line;
	char name[32];      /* "GPIO14"; "" when unnamed */
	char consumer[32];  /* "" when free or when the holder gave no name */
	bool known;         /* the kernel said whether it is used (sysfs knows only its exports) */
	bool used;          /* the kernel holds it: a driver, a program, a sysfs export */
	bool direction_known;
	bool output;
	bool active_low;
};

/* The chip's character device (root + c->path) opened read-write: an fd, or -errno. */
int bp_gpio_chip_open(const char *root, const struct bp_gpio_chip *c);

/* One line through uAPI v2, falling back to v1 (then *v1 = true). 0 or -errno. */
int bp_gpio_line_info(int fd, unsigned line, struct bp_gpio_line_info *li, bool *v1);

/*
 * One line as sysfs shows it: exported (used, consumer "sysfs", its direction) or not known
 * (a line a driver holds looks the same as a free one there).
 */
void bp_gpio_line_info_sysfs(const char *root, const struct bp_gpio_chip *c, unsigned line,
			     struct bp_gpio_line_info *li);

/*
 * Every line of the chip in *out (malloc'd, c->lines entries): through the character
 * device when it answers, else sysfs. *v1 is set when the kernel had only uAPI v1.
 * 0, -ENOMEM, or -errno from the device.
 */
int bp_gpio_lines_read(const char *root, const struct bp_gpio_chip *c,
		       struct bp_gpio_line_info **out, bool *v1);

/*
 * The line --line names in chip c: an offset ("14", which must be below c->lines) or a
 * line's name ("GPIO14", looked up in lines[0..n)). 0, or -ERANGE/-ENOENT with a one-line
 * message: "line 60: gpiochip0 \"pinctrl-bcm2835\" has lines 0..53".
 */
int bp_gpio_line_resolve(const struct bp_gpio_chip *c, const struct bp_gpio_line_info *lines,
			 unsigned n, const char *arg, unsigned *line, char *err, size_t errlen);

/* An offset ("14") or something that can be a line name; false for "" and "-3". */
bool bp_gpio_line_arg_valid(const char *arg);

#endif
