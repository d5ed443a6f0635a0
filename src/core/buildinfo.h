/* Facts about this binary that every result records, so a figure can be traced to it. */
#ifndef BP_CORE_BUILDINFO_H
#define BP_CORE_BUILDINFO_H

#include <jansson.h>

const char *bp_version(void);

/*
 * Why figures from this binary are not representative of the machine (a sanitizer or
 * unoptimised build), or NULL for a normal build.
 */
const char *bp_build_caveat(void);

/*
 * {"version", "compiler", "buildtype", "cflags", "sanitize", "arch",
 *  "libraries": {"openssl", "jansson", "libc"}} (new reference).
 */
json_t *bp_buildinfo_json(void);

#endif
