/* Usage checks several commands share; each writes a one-line message and returns -EINVAL. */
#ifndef BP_CORE_CHECKS_H
#define BP_CORE_CHECKS_H

#include <stddef.h>

#include "core/options.h"

/* path (given with flag) is an existing directory; NULL passes. */
int bp_check_dir(const char *flag, const char *path, char *err, size_t errlen);

#endif
