#include "board/gpio_chips.h"

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

const char *bp_gpio_root(const char *root)
{
	return root && *root ? root : "/";
}

/* Label and line count from the character device; false when it does not answer. */
static bool chip_from_chardev(const char *root, struct bp_gpio_chip *c)
{
	struct gpiochip_info info;
	char path[4096];
	int fd, rc;

	if (bp_sysfs_path(path, sizeof(path), root, "%s", c->path))
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	memset(&info, 0, sizeof(info));
	rc = ioctl(fd, GPIO_GET_CHIPINFO_IOCTL, &info);
	close(fd);
	if (rc)
		return false;
	info.label[sizeof(info.label) - 1] = '\0';
	bp_strlcpy(c->label, info.label, sizeof(c->label));
	c->lines = info.lines;
	return true;
}

/* base, label and ngpio of a sysfs class directory ("sys/.../gpiochip512"). */
static bool class_dir_read(const char *root, const char *dir, int64_t *base, char *label,
			   size_t llen, int64_t *ngpio)
{
	if (bp_sysfs_int(root, base, "%s/base", dir) || bp_sysfs_int(root, ngpio, "%s/ngpio", dir))
		return false;
	if (bp_sysfs_str(root, label, llen, "%s/label", dir))
		label[0] = '\0';
	return *base >= 0 && *ngpio > 0 && *ngpio <= UINT32_MAX;
}

/*
 * The chip's sysfs class directory: a child of the gpio device on kernels since 5.x
 * (/sys/bus/gpio/devices/gpiochipN/gpio/gpiochipBASE), else the /sys/class/gpio entry
 * whose device link names the chip, or whose label and line count are the chip's.
 */
/* The class directory found: its base, and its label and lines when no chardev gave them. */
static void take_class_dir(struct bp_gpio_chip *c, int64_t base, const char *label,
			   int64_t ngpio)
{
	c->sysfs_base = (int)base;
	if (!c->chardev) {
		bp_strlcpy(c->label, label, sizeof(c->label));
		c->lines = (unsigned)ngpio;
	}
}

static void chip_from_sysfs(const char *root, struct bp_gpio_chip *c)
{
	char **names = NULL, dir[256], label[64], link[64];
	int64_t base, ngpio;
	int n;

	n = bp_sysfs_list(root, "gpiochip", &names, "/sys/bus/gpio/devices/%s/gpio", c->name);
	for (int i = 0; i < n && c->sysfs_base < 0; i++) {
		snprintf(dir, sizeof(dir), "/sys/bus/gpio/devices/%s/gpio/%s", c->name, names[i]);
		if (!class_dir_read(root, dir, &base, label, sizeof(label), &ngpio))
			continue;
		take_class_dir(c, base, label, ngpio);
	}
	bp_sysfs_names_free(names, n > 0 ? n : 0);
	if (c->sysfs_base >= 0)
		return;
	n = bp_sysfs_list(root, "gpiochip", &names, "/sys/class/gpio");
	for (int i = 0; i < n && c->sysfs_base < 0; i++) {
		snprintf(dir, sizeof(dir), "/sys/class/gpio/%s", names[i]);
		if (!class_dir_read(root, dir, &base, label, sizeof(label), &ngpio))
			continue;
		if (bp_sysfs_link_name(root, link, sizeof(link), "%s/device", dir))
			link[0] = '\0';
		if (strcmp(link, c->name) &&
		    !(c->chardev && c->label[0] && !strcmp(label, c->label) &&
		      (unsigned)ngpio == c->lines))
			continue;
		take_class_dir(c, base, label, ngpio);
	}
	bp_sysfs_names_free(names, n > 0 ? n : 0);
}

int bp_gpio_chips_read(const char *root, struct bp_gpio_chips *out)
{
	char **names = NULL;
	int n;

	root = bp_gpio_root(root);
	*out = (struct bp_gpio_chips){ 0 };
	out->bus = bp_sysfs_exists(root, "/sys/bus/gpio");
	if (!out->bus)
		return 0;
	n = bp_sysfs_list(root, "gpiochip", &names, "/sys/bus/gpio/devices");
	if (n == -ENOMEM)
		return -ENOMEM;
	if (n <= 0)
		return 0;
	out->v = calloc((size_t)n, sizeof(*out->v));
	if (!out->v) {
		bp_sysfs_names_free(names, n);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++) {
		struct bp_gpio_chip *c = &out->v[out->n];

		/* gpiochip0 ... only: the bus lists nothing else, but a name is checked before
		 * it becomes a path */
		if (strlen(names[i]) >= sizeof(c->name) ||
		    strspn(names[i] + 8, "0123456789") != strlen(names[i] + 8) || !names[i][8])
			continue;
		bp_strlcpy(c->name, names[i], sizeof(c->name));
		snprintf(c->path, sizeof(c->path), "/dev/%s", c->name);
		c->sysfs_base = -1;
		c->chardev = chip_from_chardev(root, c);
		chip_from_sysfs(root, c);
		out->n++;
	}
	bp_sysfs_names_free(names, n);
	return 0;
}

void bp_gpio_chips_free(struct bp_gpio_chips *c)
{
	free(c->v);
	*c = (struct bp_gpio_chips){ 0 };
}

int bp_gpio_chips_require(const struct bp_gpio_chips *c, char *err, size_t errlen)
{
	if (c->n > 0)
		return 0;
	snprintf(err, errlen, c->bus ? "no GPIO chips found" :
		 "no GPIO chips: the kernel lacks GPIO (CONFIG_GPIOLIB)");
	return -ENODEV;
}

void bp_gpio_chip_describe(const struct bp_gpio_chip *c, char *buf, size_t len)
{
	if (c->lines)
		snprintf(buf, len, "%s \"%s\" %u lines", c->name, c->label, c->lines);
	else
		snprintf(buf, len, "%s \"%s\" (lines unknown)", c->name, c->label);
}

const struct bp_gpio_chip *bp_gpio_chip_find(const struct bp_gpio_chips *c, const char *arg,
					     char *err, size_t errlen)
{
	size_t used;

	for (int i = 0; i < c->n; i++)
		if (!strcmp(arg, c->v[i].name) || !strcmp(arg, c->v[i].path))
			return &c->v[i];
	for (int i = 0; i < c->n; i++)
		if (c->v[i].label[0] && !strcmp(arg, c->v[i].label))
			return &c->v[i];
	used = (size_t)snprintf(err, errlen, "no GPIO chip '%s' (chips: ", arg);
	for (int i = 0; i < c->n && used < errlen; i++) {
		char d[128];

		bp_gpio_chip_describe(&c->v[i], d, sizeof(d));
		used += (size_t)snprintf(err + used, errlen - used, "%s%s", i ? ", " : "", d);
	}
	if (used < errlen)
		snprintf(err + used, errlen - used, "%s)", c->n ? "" : "none");
	return NULL;
}
