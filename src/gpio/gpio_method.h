/*
 * A way to drive one GPIO line: what `boardperf gpio --method` chooses. Every method runs
 * the same toggle loop (gpio_loop), so their figures differ only by the path a write takes:
 * the character device (one ioctl per write), sysfs (a write(2) to a value file) or the
 * SoC's registers mapped into the process (a store, as wiringPi and wiringOP do).
 *
 * chardev and sysfs live in gpio_chardev.c and gpio_sysfs.c, mmap in gpio_mmap.c (with the
 * SoC detection and register maps beside it). A method never touches a line the kernel
 * reports in use unless the target says force, and close() restores the direction and
 * value it found.
 */
#ifndef BP_GPIO_GPIO_METHOD_H
#define BP_GPIO_GPIO_METHOD_H

#include <stdbool.h>
#include <stddef.h>

/* The line to drive, as the character device names it (filled in by the caller from the
 * chip it opened: gpio_chips). */
struct bp_gpio_target {
	const char *chip_path;  /* "/dev/gpiochip0" */
	const char *chip_name;  /* "gpiochip0" */
	const char *chip_label; /* the driver's label: "pinctrl-bcm2835", "1c20800.pinctrl", "9030000.pl061" */
	unsigned chip_lines;    /* lines the chip has */
	unsigned line;          /* the line's offset in the chip (< chip_lines) */
	int sysfs_base;         /* the chip's first number in /sys/class/gpio, -1 when unknown */
	const char *root;       /* "" on a board; a fixture tree in tests (its proc/, sys/, dev/) */
	bool allow_mmap;        /* --allow-mmap: /dev/mem may be mapped (root) */
	bool force;             /* --force: take a line another consumer holds */
};

/* A method's open line; each method defines its own. */
struct bp_gpio_line;

struct bp_gpio_method {
	const char *name; /* "chardev", "sysfs", "mmap" */
	/* Takes the line as an output, remembering its direction and value for close(). NULL
	 * on failure, with a one-line reason in err that names the chip and line, and *code set
	 * to the JSON contract's error code ("permission", "line-busy", "no-gpio",
	 * "unsupported", "io"). */
	struct bp_gpio_line *(*open)(const struct bp_gpio_target *t, char *err, size_t errlen,
				     const char **code);
	/* Sets the output level (0 or 1). The hot path: no allocation, no logging, no clock.
	 * 0, or -errno. */
	int (*set)(struct bp_gpio_line *l, int value);
	/* The line's level read back through the same path: 0 or 1, or -errno. */
	int (*get)(struct bp_gpio_line *l);
	/* Restores the direction and value open() found and releases the line. Called once, on
	 * every path out (the end, an error, SIGINT/SIGTERM: the loop polls bp_stop_requested()). */
	void (*close)(struct bp_gpio_line *l);
	/* One line on how it drives the line, for the result's params and the text report:
	 * "uAPI v2", "uAPI v1 (kernel before 5.10)", "BCM2835 registers via /dev/gpiomem". */
	const char *(*describe)(const struct bp_gpio_line *l);
};

extern const struct bp_gpio_method bp_gpio_chardev;
extern const struct bp_gpio_method bp_gpio_sysfs;
extern const struct bp_gpio_method bp_gpio_mmap;

#endif
