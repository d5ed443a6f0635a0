/*
 * What interfaces stand on (board/nic_links.h), from RTM_GETLINK answers built here the way
 * the kernel lays them out: a NIC with a VLAN and an 802.1ad VLAN on it, a bond of two in
 * active-backup, a bridge with a veth end whose peer lives in another namespace, a macvlan.
 * This machine's kernel has no 8021q or bonding to record them from (the VM rig's test does,
 * tests/vm); the bridge, veth and macvlan are checked against `ip -d link` by
 * tests/integration/test_info_link.sh. Answers out of their domain are refused.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdint.h>
#include <string.h>

#include "board/nic_links.h"
#include "tap.h"

#include "nl_build.h"

static void msg_open(struct dgram *d, unsigned short type, int ifindex)
{
	struct nlmsghdr h = { .nlmsg_type = type, .nlmsg_flags = NLM_F_MULTI };
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC, .ifi_index = ifindex };

	d->msg = d->len;
	put(d, &h, sizeof(h));
	put(d, &ifi, sizeof(ifi));
}

/* one interface: name, IFLA_LINK (0: none), master, kind (NULL: none) */
static void link_open(struct dgram *d, int ifindex, const char *name, int link, int master,
		      const char *kind)
{
	msg_open(d, RTM_NEWLINK, ifindex);
	attr_str(d, IFLA_IFNAME, name);
	if (link)
		attr_u32(d, IFLA_LINK, (uint32_t)link);
	if (master)
		attr_u32(d, IFLA_MASTER, (uint32_t)master);
	if (kind) {
		nest_open(d, IFLA_LINKINFO);
		attr_str(d, IFLA_INFO_KIND, kind);
	}
}

static void vlan(struct dgram *d, int ifindex, const char *name, int parent, uint16_t id,
		 uint16_t tpid)
{
	uint16_t proto = htons(tpid);

	link_open(d, ifindex, name, parent, 0, "vlan");
	nest_open(d, IFLA_INFO_DATA);
	attr(d, IFLA_VLAN_ID, &id, sizeof(id));
	attr(d, IFLA_VLAN_PROTOCOL, &proto, sizeof(proto));
	nest_close(d);
	nest_close(d);
	msg_close(d);
}

static void plain(struct dgram *d, int ifindex, const char *name, int link, int master,
		  const char *kind)
{
	link_open(d, ifindex, name, link, master, kind);
	if (kind)
		nest_close(d);
	msg_close(d);
}

/* The machine: two datagrams, as a dump spreads its links over several */
static void machine(struct dgram *d1, struct dgram *d2)
{
	uint8_t mode = 1;	/* active-backup */

	memset(d1, 0, sizeof(*d1));
	memset(d2, 0, sizeof(*d2));
	/* a physical NIC's IFLA_LINK is its own index */
	plain(d1, 2, "eth0", 2, 0, NULL);
	vlan(d1, 3, "eth0.100", 2, 100, 0x8100);
	vlan(d1, 4, "eth0.7", 2, 7, 0x88a8);
	plain(d1, 5, "eth1", 5, 6, NULL);
	plain(d1, 7, "eth2", 7, 6, NULL);
	link_open(d1, 6, "bond0", 0, 0, "bond");
	nest_open(d1, IFLA_INFO_DATA);
	attr(d1, IFLA_BOND_MODE, &mode, 1);
	nest_close(d1);
	nest_close(d1);
	msg_close(d1);
	plain(d2, 8, "br0", 0, 0, "bridge");
	/* a veth end whose peer (index 2 over there) is in another namespace */
	link_open(d2, 9, "veth0", 2, 8, "veth");
	nest_close(d2);
	attr_u32(d2, IFLA_LINK_NETNSID, 0);
	msg_close(d2);
	plain(d2, 10, "mv0", 2, 0, "macvlan");
	done(d2);
}

static json_t *entry(const struct bp_nic_links *ls, const char *name)
{
	return bp_nic_link_to_json(ls, bp_nic_links_by_name(ls, name));
}

static const char *s(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static void a_machine(void)
{
	static struct dgram d1, d2;
	struct bp_nic_links ls = { 0 };
	json_t *j;

	machine(&d1, &d2);
	CHECK_INT(bp_nic_links_parse(d1.b, d1.len, &ls), 0);
	CHECK_INT(bp_nic_links_parse(d2.b, d2.len, &ls), 1);
	CHECK_INT(ls.n, 9);

	j = entry(&ls, "eth0");
	CHECK(json_is_null(json_object_get(j, "kind")));
	CHECK(json_is_null(json_object_get(j, "parent")));	/* itself is no parent */
	CHECK(json_is_null(json_object_get(j, "vlan_id")));
	CHECK(json_is_null(json_object_get(j, "ports")));
	json_decref(j);

	j = entry(&ls, "eth0.100");
	CHECK_STR(s(j, "kind"), "vlan");
	CHECK_STR(s(j, "parent"), "eth0");
	CHECK_INT(json_integer_value(json_object_get(j, "vlan_id")), 100);
	CHECK_STR(s(j, "vlan_protocol"), "802.1Q");
	json_decref(j);
	j = entry(&ls, "eth0.7");
	CHECK_INT(json_integer_value(json_object_get(j, "vlan_id")), 7);
	CHECK_STR(s(j, "vlan_protocol"), "802.1ad");
	json_decref(j);

	j = entry(&ls, "bond0");
	CHECK_STR(s(j, "kind"), "bond");
	CHECK_STR(s(j, "bond_mode"), "active-backup");
	CHECK_INT(json_array_size(json_object_get(j, "ports")), 2);
	CHECK_STR(json_string_value(json_array_get(json_object_get(j, "ports"), 0)), "eth1");
	CHECK_STR(json_string_value(json_array_get(json_object_get(j, "ports"), 1)), "eth2");
	json_decref(j);
	j = entry(&ls, "eth2");
	CHECK_STR(s(j, "master"), "bond0");
	json_decref(j);

	j = entry(&ls, "br0");
	CHECK_STR(s(j, "kind"), "bridge");
	CHECK_INT(json_array_size(json_object_get(j, "ports")), 1);
	json_decref(j);
	/* its peer's index names another namespace's interface, not this one's eth0 */
	j = entry(&ls, "veth0");
	CHECK_STR(s(j, "kind"), "veth");
	CHECK_STR(s(j, "master"), "br0");
	CHECK(json_is_null(json_object_get(j, "parent")));
	json_decref(j);
	j = entry(&ls, "mv0");
	CHECK_STR(s(j, "kind"), "macvlan");
	CHECK_STR(s(j, "parent"), "eth0");
	json_decref(j);

	CHECK(bp_nic_links_by_index(&ls, 6) == bp_nic_links_by_name(&ls, "bond0"));
	CHECK(bp_nic_links_by_index(&ls, 99) == NULL);
	bp_nic_links_free(&ls);
	CHECK(ls.l == NULL && ls.n == 0);
}

/* Each answer spoilt in one way, parsed alone */
static int parse_one(struct dgram *d)
{
	struct bp_nic_links ls = { 0 };
	int rc = bp_nic_links_parse(d->b, d->len, &ls);

	bp_nic_links_free(&ls);
	return rc;
}

static void refused(void)
{
	static struct dgram d;
	struct nlmsgerr e = { .error = -EPERM };
	char longname[IF_NAMESIZE + 4];

	memset(&d, 0, sizeof(d));
	vlan(&d, 3, "eth0.4096", 2, 4096, 0x8100);
	CHECK_INT(parse_one(&d), -EPROTO);
	memset(&d, 0, sizeof(d));
	vlan(&d, 3, "eth0.5", 2, 5, 0x0800);	/* not a tag protocol */
	CHECK_INT(parse_one(&d), -EPROTO);
	/* a VLAN without its id */
	memset(&d, 0, sizeof(d));
	plain(&d, 3, "eth0.5", 2, 0, "vlan");
	CHECK_INT(parse_one(&d), -EPROTO);

	memset(&d, 0, sizeof(d));
	link_open(&d, 6, "bond0", 0, 0, "bond");
	nest_open(&d, IFLA_INFO_DATA);
	attr(&d, IFLA_BOND_MODE, (uint8_t[]){ 7 }, 1);
	nest_close(&d);
	nest_close(&d);
	msg_close(&d);
	CHECK_INT(parse_one(&d), -EPROTO);

	/* a name without its NUL, and one too long for an interface */
	memset(&d, 0, sizeof(d));
	msg_open(&d, RTM_NEWLINK, 2);
	attr(&d, IFLA_IFNAME, "eth0", 4);
	msg_close(&d);
	CHECK_INT(parse_one(&d), -EPROTO);
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	memset(&d, 0, sizeof(d));
	plain(&d, 2, longname, 0, 0, NULL);
	CHECK_INT(parse_one(&d), -EPROTO);

	/* an index out of its domain, and an interface with no name */
	memset(&d, 0, sizeof(d));
	plain(&d, -1, "eth0", 0, 0, NULL);
	CHECK_INT(parse_one(&d), -EPROTO);
	memset(&d, 0, sizeof(d));
	plain(&d, 2, "eth0", 0, -1, NULL);	/* a master's index past an int */
	CHECK_INT(parse_one(&d), -EPROTO);
	memset(&d, 0, sizeof(d));
	msg_open(&d, RTM_NEWLINK, 2);
	msg_close(&d);
	CHECK_INT(parse_one(&d), -EPROTO);

	/* a message longer than the datagram, and bytes after the last whole one */
	memset(&d, 0, sizeof(d));
	plain(&d, 2, "eth0", 0, 0, NULL);
	d.len -= 4;
	CHECK_INT(parse_one(&d), -EPROTO);
	memset(&d, 0, sizeof(d));
	plain(&d, 2, "eth0", 0, 0, NULL);
	d.len += 8;
	CHECK_INT(parse_one(&d), -EPROTO);

	/* the kernel's own refusal, and one out of errno's range */
	memset(&d, 0, sizeof(d));
	control(&d, NLMSG_ERROR, &e, sizeof(e));
	CHECK_INT(parse_one(&d), -EPERM);
	e.error = -70000;
	memset(&d, 0, sizeof(d));
	control(&d, NLMSG_ERROR, &e, sizeof(e));
	CHECK_INT(parse_one(&d), -EPROTO);
}

static void bond_names(void)
{
	CHECK_STR(bp_bond_mode_name(0), "balance-rr");
	CHECK_STR(bp_bond_mode_name(4), "802.3ad");
	CHECK_STR(bp_bond_mode_name(6), "balance-alb");
	CHECK(bp_bond_mode_name(7) == NULL);
	CHECK(bp_bond_mode_name(-1) == NULL);
}

int main(void)
{
	a_machine();
	refused();
	bond_names();
	return tap_done();
}
