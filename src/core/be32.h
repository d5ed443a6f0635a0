/* Big-endian 32-bit fields, as the iperf3 wire format has them (no alignment needed). */
#ifndef BP_CORE_BE32_H
#define BP_CORE_BE32_H

#include <stdint.h>

static inline void bp_put_be32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

static inline uint32_t bp_get_be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

#endif
