#include "gpio/gpio_lines.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/gpio.h>

#include "board/sysfs.h"

int bp_gpio_chip_open(const char *root, const struct bp_gpio_chip *c)
{
	char path[4096];
	int fd;

	if (bp_sysfs_path(path, sizeof(path), bp_gpio_root(root), "%s", c->path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDWR | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static void copy_name(char *dst, size_t len, const char *src, size_t srclen)
{
	size_t n = strnlen(src, srclen);

	if (n >= len)
		n = len - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static int line_info_v1(int fd, unsigned line, struct bp_gpio_line_info *li)
{
	struct gpioline_info v1;

	memset(&v1, 0, sizeof(v1));
	v1.line_offset = line;
	if (ioctl(fd, GPIO_GET_LINEINFO_IOCTL, &v1))
		return -errno;
	copy_name(li->name, sizeof(li->name), v1.name, sizeof(v1.name));
	copy_name(li->consumer, sizeof(li->consumer), v1.consumer, sizeof(v1.consumer));
	li->known = true;
	li->used = v1.flags & GPIOLINE_FLAG_KERNEL;
	li->direction_known = true;
	li->output = v1.flags & GPIOLINE_FLAG_IS_OUT;
	li->active_low = v1.flags & GPIOLINE_FLAG_ACTIVE_LOW;
	return 0;
}

int bp_gpio_line_info(int fd, unsigned line, struct bp_gpio_line_info *li, bool *v1)
{
	struct gpio_v2_line_info v2;

	*li = (struct bp_gpio_line_info){ .line = line };
	if (!*v1) {
		memset(&v2, 0, sizeof(v2));
		v2.offset = line;
		if (!ioctl(fd, GPIO_V2_GET_LINEINFO_IOCTL, &v2)) {
			copy_name(li->name, sizeof(li->name), v2.name, sizeof(v2.name));
			copy_name(li->consumer, sizeof(li->consumer), v2.consumer,
				  sizeof(v2.consumer));
			li->known = true;
			li->used = v2.flags & GPIO_V2_LINE_FLAG_USED;
			li->direction_known = v2.flags & (GPIO_V2_LINE_FLAG_INPUT |
							  GPIO_V2_LINE_FLAG_OUTPUT);
			li->output = v2.flags & GPIO_V2_LINE_FLAG_OUTPUT;
			li->active_low = v2.flags & GPIO_V2_LINE_FLAG_ACTIVE_LOW;
			return 0;
		}
		/* a kernel before 5.10 does not know the v2 call */
		if (errno != ENOTTY && errno != EINVAL)
			return -errno;
		*v1 = true;
	}
	return line_info_v1(fd, line, li);
}

void bp_gpio_line_info_sysfs(const char *root, const struct bp_gpio_chip *c, unsigned line,
			     struct bp_gpio_line_info *li)
{
	char dir[64], d[16];
	int64_t al;

	*li = (struct bp_gpio_line_info){ .line = line };
	if (c->sysfs_base < 0)
		return;
	snprintf(dir, sizeof(dir), "/sys/class/gpio/gpio%u", (unsigned)c->sysfs_base + line);
	root = bp_gpio_root(root);
	if (!bp_sysfs_exists(root, "%s/value", dir))
		return;
	li->known = true;
	li->used = true;
	bp_strlcpy(li->consumer, "sysfs", sizeof(li->consumer));
	if (!bp_sysfs_str(root, d, sizeof(d), "%s/direction", dir)) {
		li->direction_known = true;
		li->output = !strcmp(d, "out");
	}
	li->active_low = !bp_sysfs_int(root, &al, "%s/active_low", dir) && al == 1;
}

int bp_gpio_lines_read(const char *root, const struct bp_gpio_chip *c,
		       struct bp_gpio_line_info **out, bool *v1)
{
	struct bp_gpio_line_info *v;
	int fd = c->chardev ? bp_gpio_chip_open(root, c) : -ENODEV;
	int rc = 0;

	*out = NULL;
	/* a chip of unknown size has no lines to list */
	v = calloc(c->lines ? c->lines : 1, sizeof(*v));
	if (!v) {
		if (fd >= 0)
			close(fd);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < c->lines && !rc; i++) {
		if (fd >= 0)
			rc = bp_gpio_line_info(fd, i, &v[i], v1);
		else
			bp_gpio_line_info_sysfs(root, c, i, &v[i]);
	}
	if (fd >= 0)
		close(fd);
	if (rc) {
		free(v);
		return rc;
	}
	*out = v;
	return 0;
}

bool bp_gpio_line_arg_valid(const char *arg)
{
	return arg && *arg && arg[0] != '-' && strlen(arg) < 32;
}

int bp_gpio_line_resolve(const struct bp_gpio_chip *c, const struct bp_gpio_line_info *lines,
			 unsigned n, const char *arg, unsigned *line, char *err, size_t errlen)
{
	int64_t v;

	if (!bp_sysfs_parse_int(arg, 10, &v)) {
		if (v < 0 || (uint64_t)v >= c->lines) {
			if (c->lines)
				snprintf(err, errlen, "line %s: %s \"%s\" has lines 0..%u", arg,
					 c->name, c->label, c->lines - 1);
			else
				snprintf(err, errlen, "line %s: %s \"%s\" reports no lines", arg,
					 c->name, c->label);
			return -ERANGE;
		}
		*line = (unsigned)v;
		return 0;
	}
	for (unsigned i = 0; i < n; i++)
		if (lines[i].name[0] && !strcmp(lines[i].name, arg)) {
			*line = i;
			return 0;
		}
	snprintf(err, errlen, "line '%s': %s \"%s\" has no line of that name", arg, c->name,
		 c->label);
	return -ENOENT;
}
