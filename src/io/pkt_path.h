/*
 * Where a packet engine's frames go (issue 22): everything the kernel would put in front
 * of a connected UDP socket's datagrams, found once so the frames can be built once.
 *
 *   addresses and ports  the socket's own (getsockname) and its peer's (getpeername): the
 *                        frames carry the socket's 4-tuple, so the peer's kernel delivers
 *                        them to the stream's socket and its ICMP errors come back to ours;
 *   device               the one the kernel's route lookup chooses (RTM_GETROUTE, as
 *                        `ip route get`), with its MAC and MTU;
 *   next hop's MAC       the route's gateway, or the peer itself when it is on the link,
 *                        looked up in the kernel's neighbour table (RTM_GETNEIGH). The
 *                        caller has already exchanged datagrams with the peer (the stream's
 *                        greeting), so the entry exists; a loopback device needs none.
 *
 * Over loopback, IPv4 frames need net.ipv4.conf.lo.accept_local=1 (and route_localnet=1
 * for 127.0.0.0/8): they carry no route from the host's output, and input routing drops
 * them as martians otherwise (refused here with that reason).
 * Only Ethernet and loopback devices: anything else (a tun, a PPP link) is refused with
 * the reason, and the caller keeps the socket engine. A dual-stack socket's IPv4-mapped
 * peer gets IPv4 frames.
 */
#ifndef BP_IO_PKT_PATH_H
#define BP_IO_PKT_PATH_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bp_pkt_path {
	int family;             /* AF_INET or AF_INET6 */
	uint8_t src[16], dst[16];  /* addresses in network order (4 bytes used for IPv4) */
	uint16_t sport, dport;  /* host order */
	int ifindex;
	char ifname[IF_NAMESIZE];
	bool loopback;
	uint8_t src_mac[6], dst_mac[6];
	int mtu;
	uint8_t tos;            /* IP TOS / traffic class the socket would have sent */
};

/*
 * Fill p for the connected UDP socket fd. Returns 0, or -errno with one line in err:
 * -ENOTCONN (not connected), -EOPNOTSUPP (a device that is not Ethernet or loopback, a
 * loopback that would drop the frames), -EHOSTUNREACH (no valid neighbour entry for the next hop).
 */
int bp_pkt_path_resolve(int fd, struct bp_pkt_path *p, char *err, size_t errlen);

#endif
