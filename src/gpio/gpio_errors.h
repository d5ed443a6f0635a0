/*
 * The one-line reasons and JSON error codes of `boardperf gpio` (docs/board.md, "boardperf gpio",
 * errors): "no-gpio", "line-busy", "permission", "unsupported", "io".
 */
#ifndef BP_GPIO_GPIO_ERRORS_H
#define BP_GPIO_GPIO_ERRORS_H

#include <stddef.h>

#include "gpio/gpio_method.h"

/* The code for a negative errno: EACCES/EPERM permission, EBUSY line-busy, ENODEV and
 * ENOENT no-gpio, EOPNOTSUPP unsupported, anything else io. */
const char *bp_gpio_errno_code(int rc);

/* "WHAT: strerror" (with a hint for permission) in err and its code in *code. */
__attribute__((format(printf, 5, 6)))
void bp_gpio_errno_message(char *err, size_t errlen, const char **code, int rc,
			   const char *fmt, ...);

/* "line 3 of gpiochip0 is in use by \"power\" (--force to take it)", code line-busy. */
void bp_gpio_busy_message(char *err, size_t errlen, const char **code,
			  const struct bp_gpio_target *t, const char *consumer);

#endif
