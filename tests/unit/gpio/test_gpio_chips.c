/*
 * Chip and line enumeration of src/gpio against fixture trees (tests/unit/gpio/fixtures):
 * virt (a PL061 whose sysfs class directory sits below its gpio device, line 3 exported by
 * someone else), old (two chips known only from /sys/class/gpio, matched by their device
 * links), nobus (no gpiolib) and emptybus (gpiolib, no chip). Their /dev/gpiochipN are
 * plain files, so the character device never answers and sysfs is all there is.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "board/gpio_chips.h"
#include "gpio/gpio_lines.h"
#include "gpio/gpio_list.h"
#include "tap.h"

static char root[4096];

static const char *at(const char *fixtures, const char *name)
{
	snprintf(root, sizeof(root), "%s/%s", fixtures, name);
	return root;
}

static void test_virt(const char *fixtures)
{
	struct bp_gpio_chips c;
	struct bp_gpio_line_info *lines = NULL;
	char err[512] = "";
	bool v1 = false;
	unsigned line = 99;

	CHECK_INT(bp_gpio_chips_read(at(fixtures, "virt"), &c), 0);
	CHECK(c.bus);
	CHECK_INT(c.n, 1);
	CHECK_STR(c.v[0].name, "gpiochip0");
	CHECK_STR(c.v[0].path, "/dev/gpiochip0");
	CHECK_STR(c.v[0].label, "9030000.pl061");
	CHECK_INT(c.v[0].lines, 8);
	CHECK_INT(c.v[0].sysfs_base, 512);
	CHECK(!c.v[0].chardev);  /* a plain file answers no ioctl */
	CHECK_INT(bp_gpio_chips_require(&c, err, sizeof(err)), 0);

	CHECK(bp_gpio_chip_find(&c, "gpiochip0", err, sizeof(err)) == &c.v[0]);
	CHECK(bp_gpio_chip_find(&c, "/dev/gpiochip0", err, sizeof(err)) == &c.v[0]);
	CHECK(bp_gpio_chip_find(&c, "9030000.pl061", err, sizeof(err)) == &c.v[0]);
	CHECK(bp_gpio_chip_find(&c, "gpiochip7", err, sizeof(err)) == NULL);
	CHECK_STR(err, "no GPIO chip 'gpiochip7' (chips: gpiochip0 \"9030000.pl061\" 8 lines)");

	CHECK_INT(bp_gpio_lines_read(root, &c.v[0], &lines, &v1), 0);
	CHECK(lines && lines[3].used);
	CHECK_STR(lines ? lines[3].consumer : NULL, "sysfs");
	CHECK(lines && lines[3].direction_known && !lines[3].output);
	CHECK(lines && lines[3].known);
	/* not exported: sysfs cannot say whether a driver holds it */
	CHECK(lines && !lines[2].known && !lines[2].used && !lines[2].direction_known);

	CHECK_INT(bp_gpio_line_resolve(&c.v[0], lines, 8, "7", &line, err, sizeof(err)), 0);
	CHECK_INT(line, 7);
	CHECK_INT(bp_gpio_line_resolve(&c.v[0], lines, 8, "8", &line, err, sizeof(err)), -ERANGE);
	CHECK_STR(err, "line 8: gpiochip0 \"9030000.pl061\" has lines 0..7");
	CHECK_INT(bp_gpio_line_resolve(&c.v[0], lines, 8, "GPIO14", &line, err, sizeof(err)),
		  -ENOENT);
	CHECK_STR(err, "line 'GPIO14': gpiochip0 \"9030000.pl061\" has no line of that name");
	free(lines);
	bp_gpio_chips_free(&c);
}

/* Names given by the kernel are looked up; offsets are never taken for names. */
static void test_names(void)
{
	struct bp_gpio_chip chip = { .name = "gpiochip0", .label = "pinctrl-bcm2835", .lines = 3 };
	struct bp_gpio_line_info lines[3] = { { .line = 0, .name = "ID_SDA" },
					      { .line = 1, .name = "GPIO14" },
					      { .line = 2, .name = "2" } };
	char err[256];
	unsigned line = 99;

	CHECK_INT(bp_gpio_line_resolve(&chip, lines, 3, "GPIO14", &line, err, sizeof(err)), 0);
	CHECK_INT(line, 1);
	CHECK_INT(bp_gpio_line_resolve(&chip, lines, 3, "2", &line, err, sizeof(err)), 0);
	CHECK_INT(line, 2);
	CHECK(bp_gpio_line_arg_valid("GPIO14"));
	CHECK(!bp_gpio_line_arg_valid("-3"));
	CHECK(!bp_gpio_line_arg_valid(""));
}

static void test_old(const char *fixtures)
{
	struct bp_gpio_chips c;
	char d[128];

	CHECK_INT(bp_gpio_chips_read(at(fixtures, "old"), &c), 0);
	CHECK_INT(c.n, 2);
	/* natural order: gpiochip0 before gpiochip10 */
	CHECK_STR(c.n == 2 ? c.v[0].label : NULL, "pinctrl-bcm2835");
	CHECK_INT(c.n == 2 ? c.v[0].lines : 0, 54);
	CHECK_INT(c.n == 2 ? c.v[0].sysfs_base : 0, 0);
	CHECK_STR(c.n == 2 ? c.v[1].name : NULL, "gpiochip10");
	CHECK_STR(c.n == 2 ? c.v[1].label : NULL, "raspberrypi-exp-gpio");
	CHECK_INT(c.n == 2 ? c.v[1].sysfs_base : 0, 32);
	bp_gpio_chip_describe(&c.v[1], d, sizeof(d));
	CHECK_STR(d, "gpiochip10 \"raspberrypi-exp-gpio\" 8 lines");
	bp_gpio_chips_free(&c);
}

static void test_no_gpio(const char *fixtures)
{
	struct bp_gpio_chips c;
	char err[256];
	json_t *inv;

	CHECK_INT(bp_gpio_chips_read(at(fixtures, "nobus"), &c), 0);
	CHECK(!c.bus);
	CHECK_INT(bp_gpio_chips_require(&c, err, sizeof(err)), -ENODEV);
	CHECK_STR(err, "no GPIO chips: the kernel lacks GPIO (CONFIG_GPIOLIB)");
	inv = bp_gpio_inventory_json(root);
	CHECK(json_is_array(inv) && json_array_size(inv) == 0);
	json_decref(inv);
	bp_gpio_chips_free(&c);

	CHECK_INT(bp_gpio_chips_read(at(fixtures, "emptybus"), &c), 0);
	CHECK(c.bus);
	CHECK_INT(c.n, 0);
	CHECK_INT(bp_gpio_chips_require(&c, err, sizeof(err)), -ENODEV);
	CHECK_STR(err, "no GPIO chips found");
	bp_gpio_chips_free(&c);
}

static void test_json(const char *fixtures)
{
	struct bp_gpio_chips c;
	bool v1 = false;
	json_t *list, *chip, *l3, *inv;

	CHECK_INT(bp_gpio_chips_read(at(fixtures, "virt"), &c), 0);
	list = bp_gpio_list_json(root, &c, &v1);
	chip = json_array_get(list, 0);
	CHECK_STR(json_string_value(json_object_get(chip, "label")), "9030000.pl061");
	CHECK_INT(json_integer_value(json_object_get(chip, "sysfs_base")), 512);
	CHECK_INT(json_array_size(json_object_get(chip, "lines_info")), 8);
	l3 = json_array_get(json_object_get(chip, "lines_info"), 3);
	CHECK_STR(json_string_value(json_object_get(l3, "consumer")), "sysfs");
	CHECK(json_is_false(json_object_get(l3, "free")));
	CHECK(json_is_null(json_object_get(json_array_get(json_object_get(chip, "lines_info"), 1),
					   "free")));
	CHECK_STR(json_string_value(json_object_get(l3, "direction")), "input");
	CHECK(json_is_null(json_object_get(json_array_get(json_object_get(chip, "lines_info"), 0),
					   "direction")));
	json_decref(list);
	inv = bp_gpio_inventory_json(root);
	CHECK_INT(json_array_size(inv), 1);
	CHECK_INT(json_integer_value(json_object_get(json_array_get(inv, 0), "lines")), 8);
	json_decref(inv);
	bp_gpio_chips_free(&c);
}

int main(int argc, char **argv)
{
	const char *fixtures = argc > 1 ? argv[1] : "tests/unit/gpio/fixtures";

	test_virt(fixtures);
	test_names();
	test_old(fixtures);
	test_no_gpio(fixtures);
	test_json(fixtures);
	return tap_done();
}
