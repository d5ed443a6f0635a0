/*
 * The bytes a command prints, kept as they pass to stdout, so that the results database
 * holds the result exactly as it was printed (`boardperf show ID` prints them again,
 * interval lines and all). A FILE of its own (fopencookie) that writes through to the real
 * one: the live sink and the renderers print to it as they would to stdout.
 */
#ifndef BP_CLI_CAPTURE_H
#define BP_CLI_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* A result past this is still printed whole; only its copy is dropped (show then renders
 * it from the document). A suite with every interval is well under 1 MiB. */
#define BP_CAPTURE_MAX (64u << 20)

struct bp_capture;

/* Writes through to `to` (each flush of the capture flushes `to`). NULL: out of memory. */
struct bp_capture *bp_capture_new(FILE *to);

/* The FILE to print to. */
FILE *bp_capture_file(struct bp_capture *c);

/* What passed through so far (flushed), len bytes; NULL when it outgrew BP_CAPTURE_MAX or
 * memory ran out. */
const char *bp_capture_bytes(struct bp_capture *c, size_t *len);

/* Closes the FILE (flushing it) and frees the copy; NULL does nothing. */
void bp_capture_free(struct bp_capture *c);

#endif
