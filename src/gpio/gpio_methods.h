/* The methods `boardperf gpio --method` knows, in the order --method all runs them. */
#ifndef BP_GPIO_GPIO_METHODS_H
#define BP_GPIO_GPIO_METHODS_H

#include "gpio/gpio_method.h"

/* NULL-terminated: chardev, sysfs, mmap (when this build has it). */
extern const struct bp_gpio_method *const bp_gpio_methods[];

/* The method of that name, or NULL. */
const struct bp_gpio_method *bp_gpio_method_find(const char *name);

#endif
