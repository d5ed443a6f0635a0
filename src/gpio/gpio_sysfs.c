/*
 * The sysfs method: the deprecated /sys/class/gpio interface, numbered from the chip's
 * base (base + line). It exports the line (unless someone else had: then only --force
 * takes it, and it stays exported), makes it an output at the level it had ("high" or
 * "low" written to direction sets both at once, so there is no glitch), and then each
 * write is a write(2) of "1" or "0" to the value file at offset 0. close() puts back the
 * direction and level found and unexports what it exported.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "board/gpio_chips.h"
#include "board/sysfs.h"
#include "core/clock.h"
#include "gpio/gpio_errors.h"
#include "gpio/gpio_lines.h"
#include "gpio/gpio_method.h"

/* udev may still be changing the new files' owner when export returns */
#define EXPORT_WAIT_NS 2000000000ull

struct bp_gpio_line {
	char root[4096];
	unsigned number;  /* base + line */
	int value_fd;
	bool exported;    /* by us: unexported at close */
	bool changed;     /* direction written: close() puts back what was found */
	bool was_output;
	int was_value;
};

/* text written to root + "/sys/class/gpio/" + file (one write, as the kernel wants it) */
static int write_text(const char *root, const char *file, const char *text)
{
	char path[4200];
	ssize_t w;
	int fd, rc = 0;

	if (bp_sysfs_path(path, sizeof(path), root, "/sys/class/gpio/%s", file))
		return -ENAMETOOLONG;
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	w = write(fd, text, strlen(text));
	if (w < 0)
		rc = -errno;
	else if ((size_t)w != strlen(text))
		rc = -EIO;
	if (close(fd) && !rc)
		rc = -errno;
	return rc;
}

/* The value file opened read-write, waiting a moment for one that just appeared. */
static int open_value(struct bp_gpio_line *l)
{
	char path[4200];
	uint64_t deadline = bp_now_ns() + EXPORT_WAIT_NS;
	struct timespec pause = { 0, 10000000 };

	if (bp_sysfs_path(path, sizeof(path), l->root, "/sys/class/gpio/gpio%u/value", l->number))
		return -ENAMETOOLONG;
	for (;;) {
		int fd = open(path, O_RDWR | O_CLOEXEC);

		if (fd >= 0)
			return fd;
		if ((errno != ENOENT && errno != EACCES) || bp_now_ns() > deadline)
			return -errno;
		nanosleep(&pause, NULL);
	}
}

static int sysfs_get(struct bp_gpio_line *l)
{
	char b[4];
	ssize_t n = pread(l->value_fd, b, sizeof(b), 0);

	if (n < 0)
		return -errno;
	if (n < 1 || (b[0] != '0' && b[0] != '1'))
		return -EIO;
	return b[0] - '0';
}

static int sysfs_set(struct bp_gpio_line *l, int value)
{
	ssize_t n = pwrite(l->value_fd, value ? "1" : "0", 1, 0);

	return n == 1 ? 0 : n < 0 ? -errno : -EIO;
}

/* The chip's own view first: a line a driver holds is refused before any export. */
static int check_chardev(const struct bp_gpio_target *t, char *err, size_t errlen,
			 const char **code)
{
	struct bp_gpio_chip chip = { .chardev = true };
	struct bp_gpio_line_info li;
	bool v1 = false;
	int fd, rc;

	snprintf(chip.path, sizeof(chip.path), "%s", t->chip_path);
	fd = bp_gpio_chip_open(t->root, &chip);
	if (fd < 0)
		return 0;  /* sysfs alone decides (a fixture tree, a device we may not open) */
	rc = bp_gpio_line_info(fd, t->line, &li, &v1);
	close(fd);
	if (!rc && li.used && !t->force) {
		bp_gpio_busy_message(err, errlen, code, t, li.consumer);
		return -EBUSY;
	}
	return 0;
}

static int take_line(struct bp_gpio_line *l, const struct bp_gpio_target *t, char *err,
		     size_t errlen, const char **code)
{
	char dir[8], num[16], file[48];
	int rc;

	if (bp_sysfs_exists(l->root, "/sys/class/gpio/gpio%u", l->number)) {
		if (!t->force) {
			bp_gpio_busy_message(err, errlen, code, t, "sysfs");
			return -EBUSY;
		}
	} else {
		snprintf(num, sizeof(num), "%u", l->number);
		rc = write_text(l->root, "export", num);
		if (rc) {
			bp_gpio_errno_message(err, errlen, code, rc, "%s line %u: exporting gpio%u",
					      t->chip_name, t->line, l->number);
			return rc;
		}
		l->exported = true;
	}
	l->value_fd = open_value(l);
	if (l->value_fd < 0) {
		rc = l->value_fd;
		bp_gpio_errno_message(err, errlen, code, rc, "%s line %u: opening gpio%u/value",
				      t->chip_name, t->line, l->number);
		return rc;
	}
	rc = bp_sysfs_str(l->root, dir, sizeof(dir), "/sys/class/gpio/gpio%u/direction",
			  l->number);
	if (!rc)
		rc = sysfs_get(l);
	if (rc < 0) {
		bp_gpio_errno_message(err, errlen, code, rc, "%s line %u: reading gpio%u",
				      t->chip_name, t->line, l->number);
		return rc;
	}
	l->was_value = rc;
	l->was_output = !strcmp(dir, "out");
	l->changed = true;
	snprintf(file, sizeof(file), "gpio%u/direction", l->number);
	rc = write_text(l->root, file, l->was_value ? "high" : "low");
	if (rc)
		bp_gpio_errno_message(err, errlen, code, rc, "%s line %u: making gpio%u an output",
				      t->chip_name, t->line, l->number);
	return rc;
}

static void sysfs_close(struct bp_gpio_line *l)
{
	if (!l)
		return;
	char file[48];

	if (l->value_fd >= 0 && l->changed) {
		snprintf(file, sizeof(file), "gpio%u/direction", l->number);
		if (l->was_output)
			sysfs_set(l, l->was_value);
		else
			write_text(l->root, file, "in");
	}
	if (l->value_fd >= 0)
		close(l->value_fd);
	if (l->exported) {
		snprintf(file, sizeof(file), "%u", l->number);
		write_text(l->root, "unexport", file);
	}
	free(l);
}

static struct bp_gpio_line *sysfs_open(const struct bp_gpio_target *t, char *err,
				       size_t errlen, const char **code)
{
	struct bp_gpio_line *l;

	if (t->sysfs_base < 0) {
		snprintf(err, errlen, "%s: no sysfs GPIO numbering: this kernel has no "
			 "/sys/class/gpio (CONFIG_GPIO_SYSFS)", t->chip_name);
		*code = "unsupported";
		return NULL;
	}
	if (check_chardev(t, err, errlen, code))
		return NULL;
	l = calloc(1, sizeof(*l));
	if (!l) {
		snprintf(err, errlen, "out of memory");
		*code = "io";
		return NULL;
	}
	bp_strlcpy(l->root, bp_gpio_root(t->root), sizeof(l->root));
	l->number = (unsigned)t->sysfs_base + t->line;
	l->value_fd = -1;
	if (take_line(l, t, err, errlen, code)) {
		sysfs_close(l);
		return NULL;
	}
	return l;
}

static const char *sysfs_describe(const struct bp_gpio_line *l)
{
	(void)l;
	return "/sys/class/gpio value file (deprecated sysfs interface)";
}

const struct bp_gpio_method bp_gpio_sysfs = {
	.name = "sysfs",
	.open = sysfs_open,
	.set = sysfs_set,
	.get = sysfs_get,
	.close = sysfs_close,
	.describe = sysfs_describe,
};
