/*
 * The path under a network figure (board/net_path.h): the devices from the route's down to
 * the NIC (a macvlan on a VLAN on a NIC; a veth's peer is not below it), the one-line summary
 * from the path's JSON, and the two warnings read from it: vlan-no-hw-insert where the NIC
 * under a VLAN does not insert tags, link-speed above 90 % of a physical NIC's negotiated
 * speed and never for a virtual one. The real route and link table are the integration
 * test's (tests/integration/test_info_link.sh).
 */
#include <string.h>

#include "board/net_path.h"
#include "result/result.h"
#include "tap.h"

static struct bp_nic_link links_l[] = {
	{ .ifindex = 2, .name = "eth0", .vlan_id = -1, .bond_mode = -1 },
	{ .ifindex = 3, .name = "eth0.100", .kind = "vlan", .parent = 2, .vlan_id = 100,
	  .bond_mode = -1 },
	{ .ifindex = 4, .name = "mv0", .kind = "macvlan", .parent = 3, .vlan_id = -1,
	  .bond_mode = -1 },
	{ .ifindex = 5, .name = "veth0", .kind = "veth", .parent = 6, .vlan_id = -1,
	  .bond_mode = -1 },
	{ .ifindex = 6, .name = "veth1", .kind = "veth", .parent = 5, .vlan_id = -1,
	  .bond_mode = -1 },
	/* a macvlan whose lower device is in another namespace: the chain ends at it */
	{ .ifindex = 7, .name = "mv1", .kind = "macvlan", .parent = 2, .parent_elsewhere = true,
	  .vlan_id = -1, .bond_mode = -1 },
};
static const struct bp_nic_links links = { sizeof(links_l) / sizeof(links_l[0]), links_l };

static void chains(void)
{
	char c[BP_NET_PATH_MAX][IF_NAMESIZE];

	CHECK_INT(bp_net_path_chain(&links, "mv0", c, BP_NET_PATH_MAX), 3);
	CHECK_STR(c[0], "mv0");
	CHECK_STR(c[1], "eth0.100");
	CHECK_STR(c[2], "eth0");
	CHECK_INT(bp_net_path_chain(&links, "eth0.100", c, BP_NET_PATH_MAX), 2);
	CHECK_INT(bp_net_path_chain(&links, "eth0", c, BP_NET_PATH_MAX), 1);
	CHECK_INT(bp_net_path_chain(&links, "veth0", c, BP_NET_PATH_MAX), 1);
	CHECK_INT(bp_net_path_chain(&links, "mv1", c, BP_NET_PATH_MAX), 1);
	CHECK_INT(bp_net_path_chain(&links, "lo", c, BP_NET_PATH_MAX), 1);
	CHECK_STR(c[0], "lo");
	CHECK_INT(bp_net_path_chain(&links, "mv0", c, 2), 2);
}

static json_t *path(const char *json)
{
	json_error_t e;
	json_t *p = json_loads(json, 0, &e);

	if (!p)
		printf("# %s\n", e.text);
	return p;
}

#define VLAN_PATH(insert) \
	"{\"device\": \"eth0.100\", \"through\": [\"eth0.100\", \"eth0\"], \"vlan_id\": 100," \
	" \"nic\": {\"name\": \"eth0\", \"driver\": \"r8152\", \"bus\": \"usb\", \"kind\": null," \
	" \"speed_mbps\": 1000, \"duplex\": \"full\", \"autoneg\": \"on\"," \
	" \"features\": {\"tx-vlan-hw-insert\": \"" insert "\"}}}"
#define VETH_PATH \
	"{\"device\": \"bpc0\", \"through\": [\"bpc0\"], \"vlan_id\": null, \"nic\": {\"name\":" \
	" \"bpc0\", \"kind\": \"veth\", \"bus\": \"virtual\", \"speed_mbps\": 10000," \
	" \"duplex\": \"full\", \"autoneg\": \"off\"}}"
#define SLOW_PATH \
	"{\"device\": \"eth0\", \"through\": [\"eth0\"], \"vlan_id\": null, \"nic\": {\"name\":" \
	" \"eth0\", \"driver\": \"dwmac-sun8i\", \"bus\": \"platform\", \"speed_mbps\": 100," \
	" \"duplex\": \"half\", \"autoneg\": \"off\"}}"

#define WIFI_PATH \
	"{\"device\": \"wlan0\", \"through\": [\"wlan0\"], \"vlan_id\": null, \"medium\": \"wifi\"," \
	" \"nic\": {\"name\": \"bpwl-none\", \"driver\": \"brcmfmac\", \"bus\": \"sdio\"," \
	" \"wireless\": true, \"wifi\": {\"ssid\": \"lab\", \"band\": \"5GHz\", \"channel\": 36," \
	" \"signal_dbm\": -42, \"tx_bitrate_mbps\": 866.7, \"rx_bitrate_mbps\": 1201.0}}}"

static void summaries(void)
{
	char s[160];
	json_t *p;

	p = path(VLAN_PATH("off [fixed]"));
	bp_net_path_summary(p, s, sizeof(s));
	CHECK_STR(s, "via eth0.100 (VLAN 100) on eth0 (r8152 usb, 1000 Mb/s)");
	json_decref(p);
	p = path(VETH_PATH);
	bp_net_path_summary(p, s, sizeof(s));
	CHECK_STR(s, "via bpc0 (veth, 10000 Mb/s)");
	json_decref(p);
	p = path(SLOW_PATH);
	bp_net_path_summary(p, s, sizeof(s));
	CHECK_STR(s, "via eth0 (dwmac-sun8i platform, 100 Mb/s half duplex, autoneg off)");
	json_decref(p);
	p = path(WIFI_PATH);
	bp_net_path_summary(p, s, sizeof(s));
	CHECK_STR(s, "via wlan0 (brcmfmac sdio, Wi-Fi 5GHz ch 36, -42 dBm, 866.7 Mb/s)");
	json_decref(p);
	p = path("{\"device\": \"lo\", \"through\": [\"lo\"], \"vlan_id\": null, \"nic\": null}");
	bp_net_path_summary(p, s, sizeof(s));
	CHECK_STR(s, "via lo");
	/* cut short, still a string */
	bp_net_path_summary(p, s, 5);
	CHECK_STR(s, "via ");
	json_decref(p);
}

/* r after the path is attached with a figure of bitrate */
static struct bp_result *attached(const char *json, double bitrate)
{
	struct bp_result *r = bp_result_new("tcp");
	json_t *p = path(json);

	CHECK_INT(bp_net_path_attach(r, p, bitrate), 0);
	CHECK(json_object_get(r->env, "path") == p);
	json_decref(p);
	return r;
}

static void warnings(void)
{
	struct bp_result *r;

	r = attached(VLAN_PATH("off [fixed]"), 0);
	CHECK(bp_result_has_warning(r, "vlan-no-hw-insert"));
	CHECK(!bp_result_has_warning(r, "link-speed"));
	bp_result_free(r);
	r = attached(VLAN_PATH("off [requested on]"), 0);
	CHECK(bp_result_has_warning(r, "vlan-no-hw-insert"));
	bp_result_free(r);
	r = attached(VLAN_PATH("on"), 0);
	CHECK(!bp_result_has_warning(r, "vlan-no-hw-insert"));
	bp_result_free(r);
	r = attached(VLAN_PATH("on [fixed]"), 941e6);
	CHECK(!bp_result_has_warning(r, "vlan-no-hw-insert"));
	CHECK(bp_result_has_warning(r, "link-speed"));
	bp_result_free(r);
	r = attached(VLAN_PATH("on"), 899e6);
	CHECK(!bp_result_has_warning(r, "link-speed"));
	bp_result_free(r);
	/* a virtual device's speed is nominal: never the bound */
	r = attached(VETH_PATH, 9.8e9);
	CHECK(!bp_result_has_warning(r, "link-speed"));
	bp_result_free(r);
	r = attached(SLOW_PATH, 95e6);
	CHECK(bp_result_has_warning(r, "link-speed"));
	bp_result_free(r);

	/* a radio: wifi-link with the start's rates and signal (the end's read again: no such
	 * interface here, so unknown) */
	r = attached(WIFI_PATH, 3e8);
	CHECK(bp_result_has_warning(r, "wifi-link"));
	CHECK(r->nwarnings == 1 && strstr(r->warnings[0].message, "SSID lab, 5GHz") &&
	      strstr(r->warnings[0].message, "at the start TX 866.7 / RX 1201.0 Mbit/s, -42 dBm") &&
	      strstr(r->warnings[0].message, "at the end TX ? / RX ? Mbit/s, ? dBm"));
	CHECK(json_is_null(json_object_get(json_object_get(r->env, "path"), "wifi_end")));
	bp_result_free(r);
	r = attached(VETH_PATH, 1e9);
	CHECK(!bp_result_has_warning(r, "wifi-link"));
	bp_result_free(r);

	r = bp_result_new("tcp");
	CHECK_INT(bp_net_path_attach(r, NULL, 1e9), 0);
	CHECK(r->env == NULL);
	CHECK(r->nwarnings == 0);
	bp_result_free(r);
}

static void top_bitrate(void)
{
	struct bp_result *r = bp_result_new("tcp");

	CHECK(bp_net_path_top_bitrate(r) == 0);
	bp_result_add_metric(r, "up.receiver.bitrate", 5e8, "bit/s", BP_BETTER_HIGHER);
	bp_result_add_metric(r, "down.receiver.bitrate", 7e8, "bit/s", BP_BETTER_HIGHER);
	bp_result_add_metric(r, "up.sender.bitrate", 9e8, "bit/s", BP_BETTER_HIGHER);
	CHECK(bp_net_path_top_bitrate(r) == 7e8);
	bp_result_free(r);
}

int main(void)
{
	chains();
	summaries();
	warnings();
	top_bitrate();
	return tap_done();
}
