#include "board/nic_links.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "board/jsonval.h"
#include "board/sysfs.h"
#include "io/nl_attr.h"
#include "io/udp_path.h"

/* ETH_P_8021Q and ETH_P_8021AD, as IFLA_VLAN_PROTOCOL carries them (network order) */
#define TPID_8021Q 0x8100
#define TPID_8021AD 0x88a8

static const char *const bond_modes[] = {
	"balance-rr", "active-backup", "balance-xor", "broadcast", "802.3ad", "balance-tlb",
	"balance-alb",
};

const char *bp_bond_mode_name(int mode)
{
	if (mode < 0 || mode >= (int)(sizeof(bond_modes) / sizeof(bond_modes[0])))
		return NULL;
	return bond_modes[mode];
}

/* An attribute's payload as io/nl_attr.h reads it */
#define ATTR(a) RTA_DATA(a), RTA_PAYLOAD(a)

/* An ifindex as the kernel gives it: positive and an int. */
static int attr_ifindex(struct rtattr *a, int *v)
{
	uint32_t u;

	if (bp_nl_u32(ATTR(a), &u) || u > INT32_MAX)
		return -EPROTO;
	*v = (int)u;
	return 0;
}

static int vlan_data(struct rtattr *data, struct bp_nic_link *l)
{
	int len = (int)RTA_PAYLOAD(data);
	uint16_t v;

	for (struct rtattr *a = RTA_DATA(data); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		if (a->rta_type == IFLA_VLAN_ID) {
			if (bp_nl_u16(ATTR(a), &v) || v > 4095)
				return -EPROTO;
			l->vlan_id = v;
		} else if (a->rta_type == IFLA_VLAN_PROTOCOL) {
			if (bp_nl_u16(ATTR(a), &v))
				return -EPROTO;
			v = ntohs(v);
			if (v != TPID_8021Q && v != TPID_8021AD)
				return -EPROTO;
			bp_strlcpy(l->vlan_protocol, v == TPID_8021Q ? "802.1Q" : "802.1ad",
				   sizeof(l->vlan_protocol));
		}
	}
	return 0;
}

static int bond_data(struct rtattr *data, struct bp_nic_link *l)
{
	int len = (int)RTA_PAYLOAD(data);

	for (struct rtattr *a = RTA_DATA(data); RTA_OK(a, len); a = RTA_NEXT(a, len))
		if (a->rta_type == IFLA_BOND_MODE) {
			if (RTA_PAYLOAD(a) < 1 || !bp_bond_mode_name(*(const uint8_t *)RTA_DATA(a)))
				return -EPROTO;
			l->bond_mode = *(const uint8_t *)RTA_DATA(a);
		}
	return 0;
}

/* IFLA_LINKINFO: the kind, then the data that only makes sense once the kind is known. */
static int link_info(struct rtattr *info, struct bp_nic_link *l)
{
	int len = (int)RTA_PAYLOAD(info);
	struct rtattr *data = NULL;

	for (struct rtattr *a = RTA_DATA(info); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		if (a->rta_type == IFLA_INFO_KIND && bp_nl_str(ATTR(a), l->kind, sizeof(l->kind)))
			return -EPROTO;
		if (a->rta_type == IFLA_INFO_DATA)
			data = a;
	}
	if (!data)
		return 0;
	if (!strcmp(l->kind, "vlan"))
		return vlan_data(data, l);
	if (!strcmp(l->kind, "bond"))
		return bond_data(data, l);
	return 0;
}

static int one_link(struct nlmsghdr *h, struct bp_nic_link *l)
{
	struct ifinfomsg *ifi = NLMSG_DATA(h);
	int len = (int)h->nlmsg_len - NLMSG_LENGTH(sizeof(*ifi));
	int link = 0, rc = 0;

	if (len < 0 || ifi->ifi_index <= 0)
		return -EPROTO;
	memset(l, 0, sizeof(*l));
	l->ifindex = ifi->ifi_index;
	l->vlan_id = l->bond_mode = -1;
	for (struct rtattr *a = IFLA_RTA(ifi); !rc && RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		switch (a->rta_type) {
		case IFLA_IFNAME:
			rc = bp_nl_str(ATTR(a), l->name, sizeof(l->name));
			break;
		case IFLA_LINK:
			rc = attr_ifindex(a, &link);
			break;
		case IFLA_MASTER:
			rc = attr_ifindex(a, &l->master);
			break;
		case IFLA_LINK_NETNSID:
			l->parent_elsewhere = true;
			break;
		case IFLA_LINKINFO:
			rc = link_info(a, l);
			break;
		}
	}
	if (rc || !l->name[0])
		return -EPROTO;
	/* a physical device's IFLA_LINK is itself */
	l->parent = link != l->ifindex ? link : 0;
	if (!strcmp(l->kind, "vlan") && l->vlan_id < 0)
		return -EPROTO;
	return 0;
}

int bp_nic_links_parse(void *buf, size_t len, struct bp_nic_links *out)
{
	/* NLMSG_NEXT takes the length as the kernel's headers type it (an unsigned int) */
	unsigned int left = len > UINT32_MAX ? UINT32_MAX : (unsigned int)len;

	for (struct nlmsghdr *h = buf; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
		struct bp_nic_link *grown;
		int rc;

		if (h->nlmsg_type == NLMSG_DONE)
			return 1;
		if (h->nlmsg_type == NLMSG_ERROR)
			return bp_nl_error(h);
		if (h->nlmsg_type != RTM_NEWLINK)
			continue;
		if (out->n >= BP_NIC_LINKS_MAX)
			return -E2BIG;
		grown = realloc(out->l, (out->n + 1) * sizeof(*out->l));
		if (!grown)
			return -ENOMEM;
		out->l = grown;
		rc = one_link(h, &out->l[out->n]);
		if (rc)
			return rc;
		out->n++;
	}
	/* a datagram ends on a whole message; bytes left over are a broken one */
	return left == 0 ? 0 : -EPROTO;
}

int bp_nic_links_read(struct bp_nic_links *out)
{
	struct {
		struct nlmsghdr nh;
		struct ifinfomsg ifi;
	} req = {
		.nh = { .nlmsg_len = sizeof(req), .nlmsg_type = RTM_GETLINK,
			.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP, .nlmsg_seq = 1 },
		.ifi = { .ifi_family = AF_UNSPEC },
	};
	/* the kernel fills a datagram up to about a page per link with statistics */
	size_t cap = 64 * 1024;
	char *buf = malloc(cap);
	int fd, rc = 0;

	memset(out, 0, sizeof(*out));
	if (!buf)
		return -ENOMEM;
	fd = bp_nl_route_open();
	if (fd < 0) {
		free(buf);
		return fd;
	}
	if (send(fd, &req, sizeof(req), 0) < 0)
		rc = -errno;
	while (rc == 0) {
		ssize_t n = recv(fd, buf, cap, MSG_TRUNC);

		if (n < 0)
			rc = -errno;
		else if ((size_t)n > cap)
			rc = -EMSGSIZE;
		else
			rc = bp_nic_links_parse(buf, (size_t)n, out);
	}
	close(fd);
	free(buf);
	if (rc < 0) {
		bp_nic_links_free(out);
		return rc;
	}
	return 0;
}

void bp_nic_links_free(struct bp_nic_links *links)
{
	free(links->l);
	links->l = NULL;
	links->n = 0;
}

const struct bp_nic_link *bp_nic_links_by_name(const struct bp_nic_links *links,
					       const char *name)
{
	for (size_t i = 0; links && i < links->n; i++)
		if (!strcmp(links->l[i].name, name))
			return &links->l[i];
	return NULL;
}

const struct bp_nic_link *bp_nic_links_by_index(const struct bp_nic_links *links, int ifindex)
{
	for (size_t i = 0; links && ifindex > 0 && i < links->n; i++)
		if (links->l[i].ifindex == ifindex)
			return &links->l[i];
	return NULL;
}

/* The name of ifindex in this namespace, or null. */
static json_t *name_of(const struct bp_nic_links *links, int ifindex)
{
	const struct bp_nic_link *o = bp_nic_links_by_index(links, ifindex);

	return o ? json_string(o->name) : json_null();
}

json_t *bp_nic_link_to_json(const struct bp_nic_links *links, const struct bp_nic_link *l)
{
	json_t *o = json_object();
	json_t *ports = NULL;

	bp_json_put(o, "kind", bp_json_str_or_null(l->kind));
	bp_json_put(o, "parent", l->parent && !l->parent_elsewhere ?
		    name_of(links, l->parent) : json_null());
	bp_json_put(o, "master", l->master ? name_of(links, l->master) : json_null());
	bp_json_put(o, "vlan_id", l->vlan_id < 0 ? json_null() : json_integer(l->vlan_id));
	bp_json_put(o, "vlan_protocol", bp_json_str_or_null(l->vlan_protocol));
	bp_json_put(o, "bond_mode", bp_json_str_or_null(bp_bond_mode_name(l->bond_mode)));
	if (!strcmp(l->kind, "bridge") || !strcmp(l->kind, "bond")) {
		ports = json_array();
		for (size_t i = 0; i < links->n; i++)
			if (links->l[i].master == l->ifindex)
				json_array_append_new(ports, json_string(links->l[i].name));
	}
	bp_json_put(o, "ports", ports ? ports : json_null());
	return o;
}
