/*
 * Whether a UDP sender may use GSO (UDP_SEGMENT) toward its peer and still count packets
 * exactly. A GSO send is one skb of up to 64 datagrams; it becomes that many packets only
 * where something segments it before anything else sees it:
 *
 *   loopback   never segmented: the receiving host's netfilter, its drop counter and any
 *              packet counter see one packet per send (nft counted 64:1 at -l 64), and a
 *              receiver with UDP_GRO gets the skb whole, so a "packet rate" would count
 *              system calls' worth of datagrams that never existed as packets;
 *   veth, bridge, tun, macvlan, vlan, bond ...
 *              virtual devices advertise GSO in software and pass the skb on unsegmented
 *              to the peer namespace, where the same holds;
 *   a physical NIC
 *              segments in hardware (USO) or, lacking NETIF_F_GSO_UDP_L4, in software in
 *              validate_xmit_skb just before the driver: every datagram goes on the wire
 *              as a packet of its own.
 *
 * A physical NIC is told apart by /sys/class/net/DEV/device: the link to the bus device
 * (PCI, USB, platform, SDIO, virtio) behind the interface, which no software device has.
 * The device is the one the kernel's route lookup chooses for the peer (RTM_GETROUTE, as
 * `ip route get`): a host's own address other than 127.x still routes through lo.
 *
 * The loss accounting must stay exact too: a qdisc that cuts GSO skbs itself (tbf, cake,
 * netem, taprio) drops some of the pieces and still reports success (udp_io.h), while one
 * that drops whole skbs says ENOBUFS for all of the datagrams in it. So every qdisc on the
 * device must be one known to take skbs whole (pfifo_fast, fq_codel, fq, mq, ...).
 */
#ifndef BP_IO_UDP_PATH_H
#define BP_IO_UDP_PATH_H

#include <stdbool.h>
#include <stddef.h>

struct sockaddr;

/* A NETLINK_ROUTE socket for one request and its answer (1 s receive timeout), or -errno. */
int bp_nl_route_open(void);

/*
 * The interface the kernel routes dst through (its name in ifname). Returns the interface
 * index, or -errno (-ENETUNREACH when there is no route, -EAFNOSUPPORT for a family other
 * than IPv4/IPv6). An IPv4-mapped IPv6 address is looked up as IPv4.
 */
int bp_route_out_dev(const struct sockaddr *dst, char *ifname, size_t iflen);

/*
 * Whether GSO toward the connected peer of the UDP socket fd keeps one packet per
 * datagram and exact loss accounting (see above). why gets the reason in a few words
 * ("eth0: physical NIC", "lo: not a physical NIC", "eth0: qdisc tbf splits GSO sends").
 * sys_root is where /sys is found ("" in production, a fixture tree in tests).
 */
bool bp_udp_gso_safe(int fd, const char *sys_root, char *why, size_t whylen);

/* Whether the qdisc kind takes a GSO skb whole (enqueue or drop it as one). */
bool bp_qdisc_keeps_gso_whole(const char *kind);

#endif
