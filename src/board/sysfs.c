#include "board/sysfs.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Longer than any sysfs path we build; deep USB/PCI device paths reach ~250 bytes. */
#define BP_PATH_MAX 4096

/* The v* helpers carry the format check of their callers through to vsnprintf. */
BP_PRINTF(4, 0)
static int vpath(char *buf, size_t len, const char *root, const char *fmt, va_list ap)
{
	size_t rlen;
	int n;

	if (!root || !*root)
		root = "/";
	/* "/" + "/proc/x" must not become "//proc/x": drop the root's trailing slashes. */
	rlen = strlen(root);
	while (rlen > 0 && root[rlen - 1] == '/')
		rlen--;
	if (rlen >= len)
		return -ENAMETOOLONG;
	memcpy(buf, root, rlen);
	n = vsnprintf(buf + rlen, len - rlen, fmt, ap);
	if (n < 0)
		return -EINVAL;
	if ((size_t)n >= len - rlen)
		return -ENAMETOOLONG;
	return 0;
}

int bp_sysfs_path(char *buf, size_t len, const char *root, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vpath(buf, len, root, fmt, ap);
	va_end(ap);
	return ret;
}

static ssize_t read_at(const char *path, char *buf, size_t len)
{
	size_t got = 0;
	int fd;

	if (len == 0)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* sysfs hands out one page per read; proc files may need several reads. */
	while (got < len - 1) {
		ssize_t n = read(fd, buf + got, len - 1 - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			/* e.g. net speed on a link that is down reads as EINVAL */
			int err = -errno;

			close(fd);
			buf[0] = '\0';
			return err;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	buf[got] = '\0';
	return (ssize_t)got;
}

BP_PRINTF(4, 0)
static ssize_t vraw(const char *root, char *buf, size_t len, const char *fmt, va_list ap)
{
	char path[BP_PATH_MAX];
	int ret;

	if (len)
		buf[0] = '\0';
	ret = vpath(path, sizeof(path), root, fmt, ap);
	if (ret < 0)
		return ret;
	return read_at(path, buf, len);
}

ssize_t bp_sysfs_raw(const char *root, char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	ssize_t ret;

	va_start(ap, fmt);
	ret = vraw(root, buf, len, fmt, ap);
	va_end(ap);
	return ret;
}

char *bp_trim(char *s)
{
	size_t n = strlen(s);
	size_t start = 0;

	while (n > 0 && isspace((unsigned char)s[n - 1]))
		n--;
	s[n] = '\0';
	while (start < n && isspace((unsigned char)s[start]))
		start++;
	if (start)
		memmove(s, s + start, n - start + 1);
	return s;
}

BP_PRINTF(4, 0)
static int vstr(const char *root, char *buf, size_t len, const char *fmt, va_list ap)
{
	ssize_t n = vraw(root, buf, len, fmt, ap);

	if (n < 0)
		return (int)n;
	/* device-tree strings end in NUL; text after it is not part of the value */
	bp_trim(buf);
	return buf[0] ? 0 : -ENODATA;
}

int bp_sysfs_str(const char *root, char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vstr(root, buf, len, fmt, ap);
	va_end(ap);
	return ret;
}

int bp_sysfs_parse_int(const char *s, int base, int64_t *out)
{
	char *end;
	long long v;

	*out = BP_INT_UNKNOWN;
	if (!s)
		return -EINVAL;
	while (isspace((unsigned char)*s))
		s++;
	if (!*s)
		return -EINVAL;
	errno = 0;
	v = strtoll(s, &end, base);
	if (errno || end == s)
		return -EINVAL;
	while (isspace((unsigned char)*end))
		end++;
	if (*end || v == LLONG_MIN)
		return -EINVAL;
	*out = v;
	return 0;
}

int bp_sysfs_int(const char *root, int64_t *out, const char *fmt, ...)
{
	char buf[64];
	va_list ap;
	int ret;

	*out = BP_INT_UNKNOWN;
	va_start(ap, fmt);
	ret = vstr(root, buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (ret < 0)
		return ret;
	return bp_sysfs_parse_int(buf, 10, out);
}

FILE *bp_sysfs_fopen(const char *root, const char *fmt, ...)
{
	char path[BP_PATH_MAX];
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vpath(path, sizeof(path), root, fmt, ap);
	va_end(ap);
	if (ret < 0) {
		errno = -ret;
		return NULL;
	}
	return fopen(path, "re");
}

bool bp_sysfs_exists(const char *root, const char *fmt, ...)
{
	char path[BP_PATH_MAX];
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vpath(path, sizeof(path), root, fmt, ap);
	va_end(ap);
	return ret == 0 && access(path, F_OK) == 0;
}

/* Strips the real root from a resolved path so the caller sees "/sys/...". */
static int strip_root(const char *root, const char *real, char *out, size_t len)
{
	char rroot[BP_PATH_MAX];
	size_t rl;

	if (!realpath(root && *root ? root : "/", rroot))
		return -errno;
	rl = strlen(rroot);
	if (strcmp(rroot, "/") == 0)
		rl = 0;
	else if (strncmp(real, rroot, rl) != 0 || (real[rl] != '/' && real[rl] != '\0'))
		return -EXDEV;
	if (bp_strlcpy(out, real[rl] ? real + rl : "/", len) >= len)
		return -ENAMETOOLONG;
	return 0;
}

int bp_sysfs_resolve(const char *root, char *out, size_t len, const char *fmt, ...)
{
	char path[BP_PATH_MAX], real[PATH_MAX];
	va_list ap;
	int ret;

	out[0] = '\0';
	va_start(ap, fmt);
	ret = vpath(path, sizeof(path), root, fmt, ap);
	va_end(ap);
	if (ret < 0)
		return ret;
	if (!realpath(path, real))
		return -errno;
	ret = strip_root(root, real, out, len);
	if (ret < 0)
		out[0] = '\0';
	return ret;
}

int bp_sysfs_link_name(const char *root, char *out, size_t len, const char *fmt, ...)
{
	char path[BP_PATH_MAX], target[BP_PATH_MAX];
	const char *base;
	va_list ap;
	ssize_t n;
	int ret;

	out[0] = '\0';
	va_start(ap, fmt);
	ret = vpath(path, sizeof(path), root, fmt, ap);
	va_end(ap);
	if (ret < 0)
		return ret;
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = '\0';
	while (n > 1 && target[n - 1] == '/')
		target[--n] = '\0';
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	if (!*base)
		return -ENODATA;
	if (bp_strlcpy(out, base, len) >= len)
		return -ENAMETOOLONG;
	return 0;
}

static int name_cmp(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

BP_PRINTF(4, 0)
static int vlist(const char *root, const char *prefix, char ***names, const char *fmt,
		 va_list ap)
{
	char path[BP_PATH_MAX];
	struct dirent *de;
	char **v = NULL;
	int n = 0, cap = 0, ret;
	DIR *d;

	*names = NULL;
	ret = vpath(path, sizeof(path), root, fmt, ap);
	if (ret < 0)
		return ret;
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || strncmp(de->d_name, prefix, strlen(prefix)) != 0)
			continue;
		if (n == cap) {
			char **nv = realloc(v, sizeof(*v) * (size_t)(cap ? cap * 2 : 16));

			if (!nv)
				goto nomem;
			v = nv;
			cap = cap ? cap * 2 : 16;
		}
		v[n] = strdup(de->d_name);
		if (!v[n])
			goto nomem;
		n++;
	}
	closedir(d);
	if (n)
		qsort(v, (size_t)n, sizeof(*v), name_cmp);
	*names = v;
	return n;
nomem:
	closedir(d);
	bp_sysfs_names_free(v, n);
	return -ENOMEM;
}

int bp_sysfs_list(const char *root, const char *prefix, char ***names, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vlist(root, prefix, names, fmt, ap);
	va_end(ap);
	return ret;
}

void bp_sysfs_names_free(char **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

size_t bp_strlcpy(char *dst, const char *src, size_t len)
{
	size_t n = strlen(src);

	if (len) {
		size_t c = n < len - 1 ? n : len - 1;

		memcpy(dst, src, c);
		dst[c] = '\0';
	}
	return n;
}
