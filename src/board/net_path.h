/*
 * The path under a network figure (issue 36): the interface the kernel routes the peer
 * through (RTM_GETROUTE, as `ip route get`), down through the devices it stands on in this
 * namespace (a VLAN to its parent, a macvlan to its lower device) to the NIC at the bottom,
 * and that NIC's whole entry as the inventory has it at the test's start (board/nic_entry.h).
 * Every network client's result carries it as env.path:
 *
 *   { "peer": "198.18.0.2", "device": "eth0.100", "through": ["eth0.100", "eth0"],
 *     "vlan_id": 100, "medium": "wired" (loopback, wifi, virtual),
 *     "nic": { "name": "eth0", "driver", "speed_mbps", "features", "wifi", ... },
 *     "wifi_end": { ... } (a radio's link again at the end),
 *     "summary": "via eth0.100 (VLAN 100) on eth0 (r8152 usb, 1000 Mb/s)" }
 *
 * and the warnings that change how the figure reads:
 *
 *   vlan-no-hw-insert  the path goes through a VLAN and the NIC under it does not insert tags
 *                      (tx-vlan-hw-insert not on): the kernel tags every frame in software,
 *                      and a driver that mishandles tagged frames shows it in the figure (the
 *                      seed's Cubietruck: `GMAC TX status: VLAN frame` in dmesg, and its
 *                      throughput "sank into the abyss");
 *   link-speed         the figure is above 90 % of a physical NIC's negotiated speed: the link
 *                      bounds it, not the board. Not for a virtual device (veth, bridge, lo),
 *                      whose speed, if any, is nominal;
 *   wifi-link          the path is a radio's (board/wifi_link.h): its rates and signal bound the
 *                      figure; the message gives both at the start (nic.wifi) and at the end
 *                      (wifi_end, read again when the figure is reported).
 */
#ifndef BP_BOARD_NET_PATH_H
#define BP_BOARD_NET_PATH_H

#include <stddef.h>

#include <jansson.h>

#include "board/nic_links.h"
#include "io/sock.h"
#include "result/result.h"

/* At most this many devices from the route's down to the NIC (a VLAN on a macvlan on ...) */
#define BP_NET_PATH_MAX 8

/*
 * The devices from dev down through each parent in this namespace (VLAN, macvlan, ipvlan):
 * names into chain (each IF_NAMESIZE), dev first. Returns how many (at least 1).
 */
size_t bp_net_path_chain(const struct bp_nic_links *links, const char *dev,
			 char chain[][IF_NAMESIZE], size_t max);

/*
 * The path toward peer on this machine, read now (new reference), or NULL when the kernel's
 * route cannot be asked (no rtnetlink in a sandbox, no route).
 */
json_t *bp_net_path_collect(const struct bp_addr *peer);

/* path's one-line summary ("via eth0 (r8152 usb, 1000 Mb/s)") into buf, from its JSON */
void bp_net_path_summary(const json_t *path, char *buf, size_t len);

/*
 * path into r's env (env.path; a reference is taken) and the warnings above, for a figure
 * of bitrate bit/s measured over it (0: none to compare, as for a latency test). path NULL:
 * nothing. Returns 0 or -ENOMEM.
 */
int bp_net_path_attach(struct bp_result *r, json_t *path, double bitrate);

/* The highest of r's receiver.bitrate, up.receiver.bitrate, down.receiver.bitrate; or 0 */
double bp_net_path_top_bitrate(const struct bp_result *r);

#endif
