/*
 * Netlink attributes and error messages read in their domain, for every parser of the
 * kernel's netlink answers (rtnetlink's struct rtattr and genetlink's struct nlattr lay a
 * payload out alike): a number is as long as its type, a string ends within its payload,
 * an NLMSG_ERROR carries an errno the kernel can give.
 */
#ifndef BP_IO_NL_ATTR_H
#define BP_IO_NL_ATTR_H

#include <linux/netlink.h>
#include <stddef.h>
#include <stdint.h>

/* A payload of n bytes at p as the number it holds. 0, or -EPROTO when it is too short. */
int bp_nl_u8(const void *p, size_t n, uint8_t *v);
int bp_nl_u16(const void *p, size_t n, uint16_t *v);
int bp_nl_u32(const void *p, size_t n, uint32_t *v);

/* A string payload: NUL-terminated within n bytes and shorter than len. 0 or -EPROTO. */
int bp_nl_str(const void *p, size_t n, char *dst, size_t len);

/*
 * An NLMSG_ERROR message h: 1 for an acknowledgement (error 0, the end of a request that
 * asked for one), the kernel's negative errno, or -EPROTO for one cut short or out of range.
 */
int bp_nl_error(const struct nlmsghdr *h);

#endif
