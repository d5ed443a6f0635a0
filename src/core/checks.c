#include "core/checks.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

int bp_check_dir(const char *flag, const char *path, char *err, size_t errlen)
{
	struct stat st;

	if (!path)
		return 0;
	if (stat(path, &st)) {
		snprintf(err, errlen, "%s '%s': %s; expected an existing directory", flag, path,
			 strerror(errno));
		return -EINVAL;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s '%s': not a directory; expected an existing directory",
			 flag, path);
		return -EINVAL;
	}
	return 0;
}
