/*
 * Big buffers for the memory tests: anonymous mappings, written through once before any
 * timing so that page faults are never measured, and kept on base pages so that figures
 * from boards with and without transparent huge pages compare.
 */
#ifndef BP_MEM_MEM_BUFFER_H
#define BP_MEM_MEM_BUFFER_H

#include <stddef.h>

/* len bytes, every byte set to fill. 0, or -ENOMEM with a one-line message. */
int bp_mem_buffer_map(size_t len, int fill, void **out, char *err, size_t errlen);

/* NULL is ignored. */
void bp_mem_buffer_unmap(void *p, size_t len);

#endif
