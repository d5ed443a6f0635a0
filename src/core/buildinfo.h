/* Facts about this binary that every result records, so a figure can be traced to it. */
#ifndef BP_CORE_BUILDINFO_H
#define BP_CORE_BUILDINFO_H

#include <jansson.h>

const char *bp_version(void);

/*
 * {"version", "compiler", "buildtype", "cflags", "sanitize", "arch",
 *  "libraries": {"openssl", "jansson", "libc"}} (new reference).
 */
json_t *bp_buildinfo_json(void);

#endif
