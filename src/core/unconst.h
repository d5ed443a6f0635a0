/*
 * The one way this code drops a const (-Wcast-qual flags every plain cast that does): for
 * interfaces that take a non-const pointer they only read, such as struct iovec's iov_base
 * on a send, jansson's object iteration, OpenSSL's SNI macro and bp_opts_parse's argv, and
 * for free() of a copy owned through a const field. Each caller says why nothing writes
 * through the result; anything else should be made const-correct instead.
 */
#ifndef BP_CORE_UNCONST_H
#define BP_CORE_UNCONST_H

#include <stdint.h>

static inline void *bp_unconst(const void *p)
{
	/* Through an integer on purpose: the conversion is meant, not an oversight. */
	return (void *)(uintptr_t)p;
}

#endif
