#include "gpio/gpio_methods.h"

#include <string.h>

const struct bp_gpio_method *const bp_gpio_methods[] = {
	&bp_gpio_chardev,
	&bp_gpio_sysfs,
/* gpio_mmap.c and the register maps beside it (src/gpio/meson.build sets this with them) */
#ifdef BP_GPIO_HAVE_MMAP
	&bp_gpio_mmap,
#endif
	NULL,
};

const struct bp_gpio_method *bp_gpio_method_find(const char *name)
{
	for (int i = 0; bp_gpio_methods[i]; i++)
		if (!strcmp(bp_gpio_methods[i]->name, name))
			return bp_gpio_methods[i];
	return NULL;
}
