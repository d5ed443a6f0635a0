#include "gpio/gpio_errors.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *bp_gpio_errno_code(int rc)
{
	switch (rc < 0 ? -rc : rc) {
	case EACCES:
	case EPERM:
		return "permission";
	case EBUSY:
		return "line-busy";
	case ENODEV:
	case ENOENT:
		return "no-gpio";
	case EOPNOTSUPP:
		return "unsupported";
	default:
		return "io";
	}
}

void bp_gpio_errno_message(char *err, size_t errlen, const char **code, int rc,
			   const char *fmt, ...)
{
	va_list ap;
	size_t used;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	used = strlen(err);
	if (used < errlen)
		snprintf(err + used, errlen - used, ": %s%s", strerror(rc < 0 ? -rc : rc),
			 rc == -EACCES || rc == -EPERM ?
			 " (run as root, or as a member of the group that owns the device)" : "");
	*code = bp_gpio_errno_code(rc);
}

void bp_gpio_busy_message(char *err, size_t errlen, const char **code,
			  const struct bp_gpio_target *t, const char *consumer)
{
	if (consumer && *consumer)
		snprintf(err, errlen, "line %u of %s is in use by \"%s\" (--force to take it)",
			 t->line, t->chip_name, consumer);
	else
		snprintf(err, errlen, "line %u of %s is in use (its holder gave no name; "
			 "--force to take it)", t->line, t->chip_name);
	*code = "line-busy";
}
