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

int bp_check_host(const char *flag, const char *host, const char *port_flag, char *err,
		  size_t errlen)
{
	const char *colon = host ? strrchr(host, ':') : NULL;
	const char *close = host ? strchr(host, ']') : NULL;
	size_t digits;

	if (!colon || colon[1] == '\0')
		return 0;
	digits = strspn(colon + 1, "0123456789");
	if (colon[1 + digits] != '\0')
		return 0;
	/* HOST:PORT has one ':' (a name or IPv4) or "]:" after a bracketed IPv6 address */
	if (host[0] == '[' ? close + 1 != colon : strchr(host, ':') != colon)
		return 0;
	snprintf(err, errlen, "%s '%s': expected a host; the port goes with %s: %s %.*s %s %s",
		 flag, host, port_flag, flag, (int)(colon - host), host, port_flag, colon + 1);
	return -EINVAL;
}
