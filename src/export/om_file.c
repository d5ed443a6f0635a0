#include "export/om_file.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The temporary name beside path: "DIR/.BASE.XXXXXX". */
static int temp_name(const char *path, char *tmp, size_t len)
{
	char *a = strdup(path), *b = strdup(path);
	int n = -1;

	if (a && b)
		n = snprintf(tmp, len, "%s/.%s.XXXXXX", dirname(a), basename(b));
	free(a);
	free(b);
	return n < 0 ? -ENOMEM : (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int bp_om_write_file(const char *path, int (*fill)(FILE *out, void *arg, char *err,
						    size_t errlen),
		     void *arg, char *err, size_t errlen)
{
	char tmp[4096];
	FILE *f = NULL;
	int fd, rc;

	rc = temp_name(path, tmp, sizeof(tmp));
	if (rc) {
		snprintf(err, errlen, "-o '%s': %s", path, strerror(-rc));
		return rc;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "-o '%s': cannot create a file beside it: %s", path,
			 strerror(errno));
		return rc;
	}
	f = fdopen(fd, "w");
	if (!f) {
		rc = -errno;
		close(fd);
		snprintf(err, errlen, "-o '%s': %s", path, strerror(-rc));
		goto out;
	}
	rc = fill(f, arg, err, errlen);
	if (rc)
		goto out;
	/* A reader of the textfile collector runs as another user: readable by all. */
	if (fflush(f) || ferror(f) || fchmod(fileno(f), 0644) || fsync(fileno(f))) {
		rc = errno ? -errno : -EIO;
		snprintf(err, errlen, "-o '%s': writing: %s", path, strerror(-rc));
		goto out;
	}
	if (fclose(f)) {
		f = NULL;
		rc = -errno;
		snprintf(err, errlen, "-o '%s': writing: %s", path, strerror(-rc));
		goto out;
	}
	f = NULL;
	if (rename(tmp, path)) {
		rc = -errno;
		snprintf(err, errlen, "-o '%s': %s", path, strerror(errno));
	}
out:
	if (f)
		fclose(f);
	if (rc)
		unlink(tmp);
	return rc;
}
