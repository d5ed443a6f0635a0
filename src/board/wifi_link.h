/*
 * A Wi-Fi interface's link as `iw dev DEV link` shows it (issue 36): the network (SSID),
 * the access point (BSSID), the frequency, band, channel and width, the signal in dBm, and
 * the rates both ways with their MCS. Over Wi-Fi the radio bounds a figure before the
 * board does, and two runs a metre apart differ by the signal: the result must say so.
 *
 * Read from nl80211 over generic netlink, as iw reads it, a board without iw included:
 * the family's id (CTRL_CMD_GETFAMILY "nl80211"), the interface (NL80211_CMD_GET_INTERFACE:
 * SSID, frequency, channel width) and its stations (NL80211_CMD_GET_STATION dump: on a
 * client, the access point it is associated with: its MAC, NL80211_STA_INFO_SIGNAL and the
 * TX/RX rate info); a client's SSID, where the interface's answer lacks it (6.1), from the
 * scan results' BSS it is associated with (NL80211_CMD_GET_SCAN, its SSID element). Each answer goes through its parser here, so unit tests replay recorded
 * ones; every figure is checked in its domain before it is kept.
 */
#ifndef BP_BOARD_WIFI_LINK_H
#define BP_BOARD_WIFI_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

/* An SSID's 32 bytes, each at worst \xNN, and the NUL */
#define BP_WIFI_SSID_TEXT (32 * 4 + 1)

struct bp_wifi_rate {
	double mbps;		/* NaN: unknown */
	int mcs;		/* -1: none (a legacy rate) or unknown */
	const char *mode;	/* "HT", "VHT", "HE", "EHT", or NULL (legacy, unknown) */
};

struct bp_wifi_link {
	bool associated;	/* a station with an access point (its MAC, signal and rates) */
	char ssid[BP_WIFI_SSID_TEXT];	/* "" unknown; bytes outside printable ASCII as \xNN */
	char bssid[18];		/* "02:00:00:00:01:00" */
	int freq_mhz;		/* 0: unknown */
	int width_mhz;		/* 0: unknown */
	int signal_dbm;		/* 1: unknown (a signal is never above 0 dBm here) */
	struct bp_wifi_rate tx, rx;
};

/* An empty link: every figure unknown. */
void bp_wifi_link_init(struct bp_wifi_link *l);

/*
 * The parsers, each over one datagram of its answer. 0 (1 for a dump's end: NLMSG_DONE), the
 * kernel's own negative errno (NLMSG_ERROR), or -EPROTO for an answer out of its domain.
 */
int bp_wifi_parse_family(void *buf, size_t len, uint16_t *family);
int bp_wifi_parse_interface(void *buf, size_t len, struct bp_wifi_link *out);
int bp_wifi_parse_stations(void *buf, size_t len, struct bp_wifi_link *out);
/* NL80211_CMD_GET_SCAN's dump: the SSID of the BSS the interface is associated with */
int bp_wifi_parse_scan(void *buf, size_t len, struct bp_wifi_link *out);

/* "2.4GHz", "5GHz", "6GHz", "60GHz", or NULL; and the channel number, or 0 */
const char *bp_wifi_band(int freq_mhz);
int bp_wifi_channel(int freq_mhz);

/*
 * ifindex's link, asked of the kernel now. 0, -ENOENT when nl80211 is not there (no wireless
 * stack), -EOPNOTSUPP when the interface is no Wi-Fi one, or a negative errno.
 */
int bp_wifi_link_read(int ifindex, struct bp_wifi_link *out);

/*
 * {"associated", "ssid", "bssid", "freq_mhz", "band", "channel", "width_mhz", "signal_dbm",
 *  "tx_bitrate_mbps", "tx_mcs", "tx_mode", "rx_bitrate_mbps", "rx_mcs", "rx_mode"}, nulls
 * where unknown (new reference)
 */
json_t *bp_wifi_link_to_json(const struct bp_wifi_link *l);

#endif
