/*
 * The chardev method: the line requested from the GPIO character device, one ioctl per
 * write (GPIO_V2_LINE_SET_VALUES_IOCTL), as libgpiod 2 does underneath. Kernels before 5.10
 * know only the v1 handle ioctls (GPIOHANDLE_*), used then and said so by describe().
 *
 * The request first takes the line as it is (no direction flag: the kernel leaves the
 * direction alone), reads its level, then turns it into an output whose first level is the
 * one read, so taking the line never makes a glitch; close() puts back the direction and
 * level found.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/gpio.h>

#include "gpio/gpio_errors.h"
#include "gpio/gpio_lines.h"
#include "gpio/gpio_method.h"

#define CONSUMER "boardperf"

struct bp_gpio_line {
	int chip_fd;
	int fd;          /* the line request */
	bool v1;
	unsigned line;
	bool was_output;
	int was_value;
};

static int v2_config(int fd, __u64 flags, int value)
{
	struct gpio_v2_line_config cfg;

	memset(&cfg, 0, sizeof(cfg));
	cfg.flags = flags;
	if (flags & GPIO_V2_LINE_FLAG_OUTPUT) {
		cfg.num_attrs = 1;
		cfg.attrs[0].attr.id = GPIO_V2_LINE_ATTR_ID_OUTPUT_VALUES;
		cfg.attrs[0].attr.values = (__u64)(value & 1);
		cfg.attrs[0].mask = 1;
	}
	return ioctl(fd, GPIO_V2_LINE_SET_CONFIG_IOCTL, &cfg) ? -errno : 0;
}

/* uAPI v2: request as is, read the level, make it an output at that level. */
static int open_v2(struct bp_gpio_line *l)
{
	struct gpio_v2_line_request req;
	struct gpio_v2_line_values vals = { .mask = 1 };
	int rc;

	memset(&req, 0, sizeof(req));
	req.offsets[0] = l->line;
	req.num_lines = 1;
	snprintf(req.consumer, sizeof(req.consumer), CONSUMER);
	if (ioctl(l->chip_fd, GPIO_V2_GET_LINE_IOCTL, &req))
		return -errno;
	l->fd = req.fd;
	if (ioctl(l->fd, GPIO_V2_LINE_GET_VALUES_IOCTL, &vals))
		return -errno;
	l->was_value = (int)(vals.bits & 1);
	rc = v2_config(l->fd, GPIO_V2_LINE_FLAG_OUTPUT, l->was_value);
	return rc;
}

static int v1_request(struct bp_gpio_line *l, __u32 flags, int value)
{
	struct gpiohandle_request req;

	memset(&req, 0, sizeof(req));
	req.lineoffsets[0] = l->line;
	req.lines = 1;
	req.flags = flags;
	req.default_values[0] = (__u8)(value & 1);
	snprintf(req.consumer_label, sizeof(req.consumer_label), CONSUMER);
	if (ioctl(l->chip_fd, GPIO_GET_LINEHANDLE_IOCTL, &req))
		return -errno;
	l->fd = req.fd;
	return 0;
}

/* A v1 handle's flags changed: GPIOHANDLE_SET_CONFIG_IOCTL (5.5), else a new request. */
static int v1_reconfig(struct bp_gpio_line *l, __u32 flags, int value)
{
	struct gpiohandle_config cfg;

	memset(&cfg, 0, sizeof(cfg));
	cfg.flags = flags;
	cfg.default_values[0] = (__u8)(value & 1);
	if (!ioctl(l->fd, GPIOHANDLE_SET_CONFIG_IOCTL, &cfg))
		return 0;
	if (errno != ENOTTY && errno != EINVAL)
		return -errno;
	close(l->fd);
	l->fd = -1;
	return v1_request(l, flags, value);
}

static int open_v1(struct bp_gpio_line *l)
{
	struct gpiohandle_data d;
	int rc = v1_request(l, 0, 0);

	if (rc)
		return rc;
	memset(&d, 0, sizeof(d));
	if (ioctl(l->fd, GPIOHANDLE_GET_LINE_VALUES_IOCTL, &d))
		return -errno;
	l->was_value = d.values[0] & 1;
	return v1_reconfig(l, GPIOHANDLE_REQUEST_OUTPUT, l->was_value);
}

static void release(struct bp_gpio_line *l)
{
	if (l->fd >= 0)
		close(l->fd);
	if (l->chip_fd >= 0)
		close(l->chip_fd);
	free(l);
}

static struct bp_gpio_line *chardev_open(const struct bp_gpio_target *t, char *err,
					 size_t errlen, const char **code)
{
	struct bp_gpio_line *l = calloc(1, sizeof(*l));
	struct bp_gpio_chip chip = { .chardev = true };
	struct bp_gpio_line_info li;
	int rc;

	if (!l) {
		snprintf(err, errlen, "out of memory");
		*code = "io";
		return NULL;
	}
	l->fd = -1;
	l->line = t->line;
	snprintf(chip.path, sizeof(chip.path), "%s", t->chip_path);
	l->chip_fd = bp_gpio_chip_open(t->root, &chip);
	if (l->chip_fd < 0) {
		rc = l->chip_fd;
		bp_gpio_errno_message(err, errlen, code, rc, "%s: opening %s", t->chip_name,
				      t->chip_path);
		goto fail;
	}
	rc = bp_gpio_line_info(l->chip_fd, t->line, &li, &l->v1);
	if (rc) {
		bp_gpio_errno_message(err, errlen, code, rc, "%s line %u: reading its info",
				      t->chip_name, t->line);
		goto fail;
	}
	if (li.used && !t->force) {
		bp_gpio_busy_message(err, errlen, code, t, li.consumer);
		goto fail;
	}
	l->was_output = li.output;
	rc = l->v1 ? open_v1(l) : open_v2(l);
	if (rc) {
		bp_gpio_errno_message(err, errlen, code, rc, "%s line %u: requesting it as an "
				      "output (%s)", t->chip_name, t->line,
				      l->v1 ? "uAPI v1" : "uAPI v2");
		if (rc == -EBUSY && li.consumer[0])
			snprintf(err + strlen(err), errlen - strlen(err),
				 ": held by \"%s\"", li.consumer);
		goto fail;
	}
	return l;
fail:
	release(l);
	return NULL;
}

static int set_v1(struct bp_gpio_line *l, int value)
{
	struct gpiohandle_data d = { .values = { (__u8)value } };

	return ioctl(l->fd, GPIOHANDLE_SET_LINE_VALUES_IOCTL, &d) ? -errno : 0;
}

/* The hot path: one ioctl, 16 bytes of arguments (v1's are 64, built only for v1). */
static int chardev_set(struct bp_gpio_line *l, int value)
{
	struct gpio_v2_line_values vals = { .bits = (__u64)value, .mask = 1 };

	if (__builtin_expect(l->v1, 0))
		return set_v1(l, value);
	return ioctl(l->fd, GPIO_V2_LINE_SET_VALUES_IOCTL, &vals) ? -errno : 0;
}

static int chardev_get(struct bp_gpio_line *l)
{
	struct gpio_v2_line_values vals = { .mask = 1 };
	struct gpiohandle_data d;

	if (l->v1) {
		memset(&d, 0, sizeof(d));
		return ioctl(l->fd, GPIOHANDLE_GET_LINE_VALUES_IOCTL, &d) ? -errno :
		       d.values[0] & 1;
	}
	return ioctl(l->fd, GPIO_V2_LINE_GET_VALUES_IOCTL, &vals) ? -errno :
	       (int)(vals.bits & 1);
}

/* An input goes back to input; an output to the level it had. Then the line is released. */
static void chardev_close(struct bp_gpio_line *l)
{
	if (!l)
		return;
	if (l->fd >= 0) {
		if (l->was_output)
			chardev_set(l, l->was_value);
		else if (l->v1)
			v1_reconfig(l, GPIOHANDLE_REQUEST_INPUT, 0);
		else
			v2_config(l->fd, GPIO_V2_LINE_FLAG_INPUT, 0);
	}
	release(l);
}

static const char *chardev_describe(const struct bp_gpio_line *l)
{
	return l->v1 ? "uAPI v1 (kernel before 5.10)" : "uAPI v2";
}

const struct bp_gpio_method bp_gpio_chardev = {
	.name = "chardev",
	.open = chardev_open,
	.set = chardev_set,
	.get = chardev_get,
	.close = chardev_close,
	.describe = chardev_describe,
};
