/*
 * A Wi-Fi link (board/wifi_link.h) from nl80211 answers built here as the kernel lays them
 * out: the family's id; a client's interface on channel 36 at 80 MHz with an SSID holding a
 * byte iw escapes; its station dump (the access point: MAC, signal, VHT transmit and HE
 * receive rates, a legacy 16-bit rate); the band and channel of each band's frequencies;
 * answers out of their domain refused. The real kernel's answers are the VM rig's
 * (mac80211_hwsim, tools/vm), where this machine's kernel has no wireless stack.
 */
#include <errno.h>
#include <linux/genetlink.h>
#include <linux/nl80211.h>
#include <math.h>

#include "board/wifi_link.h"
#include "tap.h"

#include "nl_build.h"

static void msg_open(struct dgram *d, unsigned short type, uint8_t cmd)
{
	struct nlmsghdr h = { .nlmsg_type = type, .nlmsg_flags = NLM_F_MULTI };
	struct genlmsghdr g = { .cmd = cmd, .version = 1 };

	d->msg = d->len;
	put(d, &h, sizeof(h));
	put(d, &g, sizeof(g));
}

#define FAMILY 0x1c

static void attr_u8(struct dgram *d, unsigned short type, uint8_t v) { attr(d, type, &v, 1); }

static void interface(struct dgram *d, const void *ssid, size_t ssid_len, uint32_t freq,
		      uint32_t width)
{
	memset(d, 0, sizeof(*d));
	msg_open(d, FAMILY, NL80211_CMD_NEW_INTERFACE);
	attr_u32(d, NL80211_ATTR_IFINDEX, 3);
	attr_u32(d, NL80211_ATTR_IFTYPE, NL80211_IFTYPE_STATION);
	attr(d, NL80211_ATTR_SSID, ssid, ssid_len);
	attr_u32(d, NL80211_ATTR_WIPHY_FREQ, freq);
	attr_u32(d, NL80211_ATTR_CHANNEL_WIDTH, width);
	attr_u32(d, NL80211_ATTR_CENTER_FREQ1, 5210);
	msg_close(d);
}

/* The access point: signal (as the kernel's signed byte), TX VHT MCS 9 at 866.7 Mbit/s,
 * RX HE MCS 11 at 1201 Mbit/s; a second station after it is not read */
static void stations(struct dgram *d, int8_t signal, uint8_t vht_mcs)
{
	static const uint8_t ap[6] = { 0x02, 0x00, 0x00, 0x00, 0x01, 0x00 };

	memset(d, 0, sizeof(*d));
	msg_open(d, FAMILY, NL80211_CMD_NEW_STATION);
	attr_u32(d, NL80211_ATTR_IFINDEX, 3);
	attr(d, NL80211_ATTR_MAC, ap, sizeof(ap));
	nest_open(d, NL80211_ATTR_STA_INFO);
	attr_u8(d, NL80211_STA_INFO_SIGNAL, (uint8_t)signal);
	nest_open(d, NL80211_STA_INFO_TX_BITRATE);
	attr(d, NL80211_RATE_INFO_BITRATE, (uint16_t[]){ 8667 }, 2);
	attr_u32(d, NL80211_RATE_INFO_BITRATE32, 8667);
	attr_u8(d, NL80211_RATE_INFO_VHT_MCS, vht_mcs);
	nest_close(d);
	nest_open(d, NL80211_STA_INFO_RX_BITRATE);
	attr_u32(d, NL80211_RATE_INFO_BITRATE32, 12010);
	attr_u8(d, NL80211_RATE_INFO_HE_MCS, 11);
	nest_close(d);
	nest_close(d);
	msg_close(d);
	msg_open(d, FAMILY, NL80211_CMD_NEW_STATION);
	attr(d, NL80211_ATTR_MAC, (uint8_t[]){ 2, 0, 0, 0, 2, 0 }, 6);
	msg_close(d);
	done(d);
}

static void a_client(void)
{
	static struct dgram d;
	struct bp_wifi_link l;
	uint16_t family;
	json_t *j;

	memset(&d, 0, sizeof(d));
	msg_open(&d, GENL_ID_CTRL, CTRL_CMD_NEWFAMILY);
	attr_str(&d, CTRL_ATTR_FAMILY_NAME, "nl80211");
	attr(&d, CTRL_ATTR_FAMILY_ID, (uint16_t[]){ FAMILY }, 2);
	msg_close(&d);
	CHECK_INT(bp_wifi_parse_family(d.b, d.len, &family), 0);
	CHECK_INT(family, FAMILY);

	bp_wifi_link_init(&l);
	interface(&d, "board\\lab \x01", 11, 5180, NL80211_CHAN_WIDTH_80);
	CHECK_INT(bp_wifi_parse_interface(d.b, d.len, &l), 0);
	CHECK_STR(l.ssid, "board\\x5clab \\x01");
	CHECK_INT(l.freq_mhz, 5180);
	CHECK_INT(l.width_mhz, 80);
	CHECK(!l.associated);
	stations(&d, -42, 9);
	CHECK_INT(bp_wifi_parse_stations(d.b, d.len, &l), 1);
	CHECK(l.associated);
	CHECK_STR(l.bssid, "02:00:00:00:01:00");
	CHECK_INT(l.signal_dbm, -42);
	CHECK_NEAR(l.tx.mbps, 866.7, 1e-9);
	CHECK_INT(l.tx.mcs, 9);
	CHECK_STR(l.tx.mode, "VHT");
	CHECK_NEAR(l.rx.mbps, 1201.0, 1e-9);
	CHECK_STR(l.rx.mode, "HE");

	j = bp_wifi_link_to_json(&l);
	CHECK_STR(json_string_value(json_object_get(j, "band")), "5GHz");
	CHECK_INT(json_integer_value(json_object_get(j, "channel")), 36);
	CHECK_INT(json_integer_value(json_object_get(j, "signal_dbm")), -42);
	CHECK_INT(json_integer_value(json_object_get(j, "rx_mcs")), 11);
	json_decref(j);

	/* nothing known: every figure null, not 0 */
	bp_wifi_link_init(&l);
	j = bp_wifi_link_to_json(&l);
	CHECK(json_is_false(json_object_get(j, "associated")));
	CHECK(json_is_null(json_object_get(j, "signal_dbm")) && json_is_null(json_object_get(j, "tx_bitrate_mbps"))
	      && json_is_null(json_object_get(j, "channel")) && json_is_null(json_object_get(j, "ssid")));
	json_decref(j);
}

/* A scan dump's BSS: its status (UINT32_MAX: none) and information elements */
static void bss(struct dgram *d, uint32_t status, const void *ies, size_t n)
{
	msg_open(d, FAMILY, NL80211_CMD_NEW_SCAN_RESULTS);
	attr_u32(d, NL80211_ATTR_IFINDEX, 3);
	nest_open(d, NL80211_ATTR_BSS);
	attr(d, NL80211_BSS_BSSID, (uint8_t[]){ 2, 0, 0, 0, 1, 0 }, 6);
	attr_u32(d, NL80211_BSS_FREQUENCY, 2437);
	attr(d, NL80211_BSS_INFORMATION_ELEMENTS, ies, n);
	if (status != UINT32_MAX)
		attr_u32(d, NL80211_BSS_STATUS, status);
	nest_close(d);
	msg_close(d);
}

/* A client's SSID from the scan results, where its interface's answer has none (6.1) */
static void scan(void)
{
	static struct dgram d;
	static const uint8_t other[] = { 0, 5, 'o', 't', 'h', 'e', 'r' };
	/* the rates element first, then the SSID */
	static const uint8_t mine[] = { 1, 2, 0x82, 0x84, 0, 12, 'b', 'o', 'a', 'r', 'd', 'p', 'e',
					'r', 'f', '-', 'v', 'm' };
	static const uint8_t cut[] = { 1, 2, 0x82, 0, 12, 'b' };
	struct bp_wifi_link l;

	memset(&d, 0, sizeof(d));
	bss(&d, UINT32_MAX, other, sizeof(other));
	bss(&d, NL80211_BSS_STATUS_ASSOCIATED, mine, sizeof(mine));
	done(&d);
	bp_wifi_link_init(&l);
	CHECK_INT(bp_wifi_parse_scan(d.b, d.len, &l), 1);
	CHECK_STR(l.ssid, "boardperf-vm");
	/* one the interface already named stays */
	CHECK_INT(bp_wifi_parse_scan(d.b, d.len, &l), 1);
	CHECK_STR(l.ssid, "boardperf-vm");
	/* an element running past its bytes */
	memset(&d, 0, sizeof(d));
	bss(&d, NL80211_BSS_STATUS_ASSOCIATED, cut, sizeof(cut));
	bp_wifi_link_init(&l);
	CHECK_INT(bp_wifi_parse_scan(d.b, d.len, &l), -EPROTO);
	CHECK_STR(l.ssid, "");
}

static void bands(void)
{
	CHECK_STR(bp_wifi_band(2412), "2.4GHz");
	CHECK_INT(bp_wifi_channel(2412), 1);
	CHECK_INT(bp_wifi_channel(2472), 13);
	CHECK_INT(bp_wifi_channel(2484), 14);
	CHECK_STR(bp_wifi_band(5825), "5GHz");
	CHECK_INT(bp_wifi_channel(5825), 165);
	CHECK_STR(bp_wifi_band(5955), "6GHz");
	CHECK_INT(bp_wifi_channel(5955), 1);
	CHECK_INT(bp_wifi_channel(5935), 2);
	CHECK_INT(bp_wifi_channel(7115), 233);
	CHECK_STR(bp_wifi_band(58320), "60GHz");
	CHECK_INT(bp_wifi_channel(58320), 1);
	CHECK(bp_wifi_band(900) == NULL && bp_wifi_channel(900) == 0);
}

static void refused(void)
{
	static struct dgram d;
	struct bp_wifi_link l;
	struct nlmsgerr e = { .error = -ENODEV };
	uint16_t family;
	char ssid33[33];

	bp_wifi_link_init(&l);
	memset(ssid33, 'a', sizeof(ssid33));
	interface(&d, ssid33, sizeof(ssid33), 2412, 1);
	CHECK_INT(bp_wifi_parse_interface(d.b, d.len, &l), -EPROTO);
	interface(&d, "x", 1, 0, 1);
	CHECK_INT(bp_wifi_parse_interface(d.b, d.len, &l), -EPROTO);
	interface(&d, "x", 1, 200000, 1);
	CHECK_INT(bp_wifi_parse_interface(d.b, d.len, &l), -EPROTO);

	/* a signal above 0 dBm, an MCS past VHT's, a station without its MAC */
	bp_wifi_link_init(&l);
	stations(&d, 5, 9);
	CHECK_INT(bp_wifi_parse_stations(d.b, d.len, &l), -EPROTO);
	bp_wifi_link_init(&l);
	stations(&d, -60, 12);
	CHECK_INT(bp_wifi_parse_stations(d.b, d.len, &l), -EPROTO);
	memset(&d, 0, sizeof(d));
	msg_open(&d, FAMILY, NL80211_CMD_NEW_STATION);
	attr_u32(&d, NL80211_ATTR_IFINDEX, 3);
	msg_close(&d);
	bp_wifi_link_init(&l);
	CHECK_INT(bp_wifi_parse_stations(d.b, d.len, &l), -EPROTO);

	/* a rate past 1 Tbit/s */
	memset(&d, 0, sizeof(d));
	msg_open(&d, FAMILY, NL80211_CMD_NEW_STATION);
	attr(&d, NL80211_ATTR_MAC, (uint8_t[]){ 2, 0, 0, 0, 1, 0 }, 6);
	nest_open(&d, NL80211_ATTR_STA_INFO);
	nest_open(&d, NL80211_STA_INFO_TX_BITRATE);
	attr_u32(&d, NL80211_RATE_INFO_BITRATE32, 10000001);
	nest_close(&d);
	nest_close(&d);
	msg_close(&d);
	bp_wifi_link_init(&l);
	CHECK_INT(bp_wifi_parse_stations(d.b, d.len, &l), -EPROTO);

	/* a family id among netlink's control types; the kernel's refusal; a cut datagram */
	memset(&d, 0, sizeof(d));
	msg_open(&d, GENL_ID_CTRL, CTRL_CMD_NEWFAMILY);
	attr(&d, CTRL_ATTR_FAMILY_ID, (uint16_t[]){ 3 }, 2);
	msg_close(&d);
	CHECK_INT(bp_wifi_parse_family(d.b, d.len, &family), -EPROTO);
	memset(&d, 0, sizeof(d));
	control(&d, NLMSG_ERROR, &e, sizeof(e));
	CHECK_INT(bp_wifi_parse_interface(d.b, d.len, &l), -ENODEV);
	interface(&d, "x", 1, 2412, 1);
	d.len -= 4;
	CHECK_INT(bp_wifi_parse_interface(d.b, d.len, &l), -EPROTO);
}

int main(void)
{
	a_client();
	scan();
	bands();
	refused();
	return tap_done();
}
