/*
 * How a machine's interfaces stand on each other, as `ip -d link` shows it: which are VLANs
 * (their id, tag protocol and parent), bridges, bonds (their mode), veths, macvlans, and which
 * belong to a bridge or bond. The seed's Cubietruck lost its throughput on a tagged VLAN; a
 * result that says "eth0.100, VLAN 100 on eth0" points at the parent's offloads.
 *
 * Read from the kernel's link table over rtnetlink (one RTM_GETLINK dump), the only place a
 * VLAN's id is kept without the 8021q module's /proc files: IFLA_IFNAME, IFLA_LINK (the
 * parent), IFLA_MASTER, and IFLA_LINKINFO's kind and data (IFLA_VLAN_ID, IFLA_VLAN_PROTOCOL,
 * IFLA_BOND_MODE). The dump's datagrams go through bp_nic_links_parse one at a time, so unit
 * tests replay recorded ones; every figure in them is checked in its domain first.
 */
#ifndef BP_BOARD_NIC_LINKS_H
#define BP_BOARD_NIC_LINKS_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

/* More than any board has; a dump with more is refused rather than grown without end */
#define BP_NIC_LINKS_MAX 4096

struct bp_nic_link {
	int ifindex;
	char name[IF_NAMESIZE];
	char kind[16];		/* IFLA_INFO_KIND: "vlan", "bridge", "bond", "veth", ...; "" physical */
	int parent;		/* IFLA_LINK when it differs from ifindex (VLAN, macvlan, veth peer), else 0 */
	bool parent_elsewhere;	/* the parent is in another network namespace (IFLA_LINK_NETNSID) */
	int master;		/* IFLA_MASTER: the bridge or bond it belongs to, else 0 */
	int vlan_id;		/* 0-4095 for a VLAN, else -1 */
	char vlan_protocol[8];	/* "802.1Q", "802.1ad" */
	int bond_mode;		/* 0-6 for a bond (IFLA_BOND_MODE), else -1 */
};

struct bp_nic_links {
	size_t n;
	struct bp_nic_link *l;	/* malloc'd */
};

/*
 * One datagram of an RTM_GETLINK dump's answer, its links appended to out. Returns 1 when
 * it held the dump's end (NLMSG_DONE), 0 when more follow, or a negative errno: the
 * kernel's own (NLMSG_ERROR), -EPROTO for a message or attribute out of its domain (a
 * length past the datagram, a name without its NUL, a VLAN id above 4095), -E2BIG past
 * BP_NIC_LINKS_MAX links.
 */
int bp_nic_links_parse(void *buf, size_t len, struct bp_nic_links *out);

/* The link table of this network namespace. 0, or a negative errno (out is then empty). */
int bp_nic_links_read(struct bp_nic_links *out);

void bp_nic_links_free(struct bp_nic_links *links);

const struct bp_nic_link *bp_nic_links_by_name(const struct bp_nic_links *links,
					       const char *name);
const struct bp_nic_link *bp_nic_links_by_index(const struct bp_nic_links *links, int ifindex);

/* The kernel's name of a bond mode: "balance-rr", "active-backup", ...; NULL out of 0-6 */
const char *bp_bond_mode_name(int mode);

/*
 * What one interface stands on, for its inventory entry: {"kind", "parent", "master",
 * "vlan_id", "vlan_protocol", "bond_mode", "ports": [...] (a bridge's or bond's
 * members, by name) or null}. Names of interfaces in another namespace are null.
 */
json_t *bp_nic_link_to_json(const struct bp_nic_links *links, const struct bp_nic_link *l);

#endif
