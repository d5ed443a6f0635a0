/* Facts about this binary that every result records, so a figure can be traced to it. */
#ifndef BP_CORE_BUILDINFO_H
#define BP_CORE_BUILDINFO_H

#include <jansson.h>
#include <stdio.h>

const char *bp_version(void);

/* The Debian architecture this binary is for: amd64, arm64, armhf, armel (the compiler's
 * target macros decide, so a native build on a board names its own). */
const char *bp_build_abi(void);

/* `boardperf --version`: the version, architecture and linking, build type, compiler and
 * flags, and the versions of the libraries linked in, on three lines. */
void bp_buildinfo_print(FILE *f);

/*
 * Why figures from this binary are not representative of the machine (a sanitizer or
 * unoptimised build), or NULL for a normal build.
 */
const char *bp_build_caveat(void);

/*
 * {"version", "compiler", "buildtype", "cflags", "ldflags", "sanitize", "arch", "abi",
 *  "static", "libraries": {"openssl", "jansson", "liburing", "http_parser", "libc"}}
 * (new reference).
 */
json_t *bp_buildinfo_json(void);

#endif
