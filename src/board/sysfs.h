/*
 * Reading /proc and /sys files below a root directory. The root is "/" on the real machine
 * and a fixture tree in unit tests, so every reader in src/board goes through here and
 * never opens an absolute path itself.
 *
 * Paths are printf formats ("/sys/class/net/%s/speed"). Readers return 0 (or a length) on
 * success and a negative errno otherwise, and always leave their output in a defined
 * "unknown" state on failure: "" for strings, BP_INT_UNKNOWN for integers.
 */
#ifndef BP_BOARD_SYSFS_H
#define BP_BOARD_SYSFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* An integer we could not read. No sysfs value we report can legitimately be this. */
#define BP_INT_UNKNOWN INT64_MIN

#define BP_PRINTF(f, a) __attribute__((format(printf, f, a)))

/* root + formatted path into buf; -ENAMETOOLONG when it does not fit. */
BP_PRINTF(4, 5)
int bp_sysfs_path(char *buf, size_t len, const char *root, const char *fmt, ...);

/* Raw bytes (device-tree files hold NULs), NUL-terminated; returns the byte count. */
BP_PRINTF(4, 5)
ssize_t bp_sysfs_raw(const char *root, char *buf, size_t len, const char *fmt, ...);

/*
 * The file's text up to its first NUL, surrounding whitespace removed.
 * -ENODATA when that leaves nothing.
 */
BP_PRINTF(4, 5)
int bp_sysfs_str(const char *root, char *buf, size_t len, const char *fmt, ...);

/* A decimal integer that must be the whole (trimmed) file; -EINVAL for anything else. */
BP_PRINTF(3, 4)
int bp_sysfs_int(const char *root, int64_t *out, const char *fmt, ...);

/* Opens the file for line-by-line parsing (cpuinfo, meminfo, mountinfo). NULL + errno. */
BP_PRINTF(2, 3)
FILE *bp_sysfs_fopen(const char *root, const char *fmt, ...);

BP_PRINTF(2, 3)
bool bp_sysfs_exists(const char *root, const char *fmt, ...);

/*
 * The path with every symlink resolved, as seen from inside root ("/sys/devices/...").
 * -EXDEV when a link leads out of root.
 */
BP_PRINTF(4, 5)
int bp_sysfs_resolve(const char *root, char *out, size_t len, const char *fmt, ...);

/* The last component of a symlink's target: device/driver -> "e1000e". */
BP_PRINTF(4, 5)
int bp_sysfs_link_name(const char *root, char *out, size_t len, const char *fmt, ...);

/*
 * Names in a directory that start with prefix, in natural order (cpu2 before cpu10).
 * Returns the count and a malloc'd array in *names; free it with bp_sysfs_names_free.
 */
BP_PRINTF(4, 5)
int bp_sysfs_list(const char *root, const char *prefix, char ***names, const char *fmt, ...);
void bp_sysfs_names_free(char **names, int n);

/* Strict whole-string integer parse (leading/trailing blanks allowed). */
int bp_sysfs_parse_int(const char *s, int base, int64_t *out);

/* Removes leading and trailing whitespace in place; returns s. */
char *bp_trim(char *s);

/* Bounded copy that always terminates; returns strlen(src) like strlcpy. */
size_t bp_strlcpy(char *dst, const char *src, size_t len);

#endif
