#include "mem/mem_buffer.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "core/units.h"

int bp_mem_buffer_map(size_t len, int fill, void **out, char *err, size_t errlen)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char size[32];

	*out = NULL;
	if (p == MAP_FAILED) {
		snprintf(err, errlen, "cannot map a %s buffer: %s",
			 bp_format_bytes(size, sizeof(size), (double)len), strerror(errno));
		return -ENOMEM;
	}
	/*
	 * Huge pages would take most TLB misses out of the latency chase on a PC with THP
	 * "always" and leave them in on a board without THP; base pages everywhere keep the
	 * figures comparable. Kernels without THP refuse the advice, which is just as well.
	 */
#ifdef MADV_NOHUGEPAGE
	madvise(p, len, MADV_NOHUGEPAGE);
#endif
	/*
	 * Every page present and written before any timing, so that no timed pass takes a
	 * page fault. Populating in one call (Linux 5.14+) spares a fault per page, which in
	 * a VM costs microseconds each; older kernels fault the pages in through the memset.
	 */
#ifdef MADV_POPULATE_WRITE
	madvise(p, len, MADV_POPULATE_WRITE);
#endif
	memset(p, fill, len);
	*out = p;
	return 0;
}

void bp_mem_buffer_unmap(void *p, size_t len)
{
	if (p)
		munmap(p, len);
}
