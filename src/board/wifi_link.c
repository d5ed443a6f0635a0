#include "board/wifi_link.h"

#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/nl80211.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "board/jsonval.h"
#include "io/nl_attr.h"

/* Attributes as genetlink lays them out (struct nlattr, 4-byte aligned) */
#define ATTR_OK(a, len) ((len) >= (int)sizeof(struct nlattr) && \
			 (a)->nla_len >= sizeof(struct nlattr) && (int)(a)->nla_len <= (len))
#define ATTR_NEXT(a, len) ((len) -= NLA_ALIGN((a)->nla_len), \
			   (struct nlattr *)((char *)(a) + NLA_ALIGN((a)->nla_len)))
#define ATTR_DATA(a) ((void *)((char *)(a) + NLA_HDRLEN))
#define ATTR_LEN(a) ((size_t)(a)->nla_len - NLA_HDRLEN)
#define ATTR_TYPE(a) ((a)->nla_type & NLA_TYPE_MASK)
/* An attribute's payload as io/nl_attr.h reads it */
#define ATTR(a) ATTR_DATA(a), ATTR_LEN(a)

/* A rate above 1 Tbit/s (in the kernel's 100 kbit/s units) is no radio's */
#define BITRATE32_MAX 10000000u
/* The highest MCS index each mode defines (HT counts its spatial streams in: 0-76) */
#define HT_MCS_MAX 76
#define VHT_MCS_MAX 11
#define HE_MCS_MAX 11
#define EHT_MCS_MAX 15

void bp_wifi_link_init(struct bp_wifi_link *l)
{
	memset(l, 0, sizeof(*l));
	l->signal_dbm = 1;
	l->tx = l->rx = (struct bp_wifi_rate){ .mbps = NAN, .mcs = -1 };
}

/*
 * Each message of the datagram with its attributes (after the genetlink header) to fn.
 * 1 at NLMSG_DONE, 0 at the datagram's end, the kernel's errno, or -EPROTO.
 */
static int each_message(void *buf, size_t len, int (*fn)(struct nlattr *a, int alen, void *arg),
			void *arg)
{
	unsigned int left = len > UINT32_MAX ? UINT32_MAX : (unsigned int)len;

	for (struct nlmsghdr *h = buf; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
		int alen = (int)h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN), rc;

		if (h->nlmsg_type == NLMSG_DONE)
			return 1;
		if (h->nlmsg_type == NLMSG_ERROR)
			return bp_nl_error(h);
		if (h->nlmsg_type < NLMSG_MIN_TYPE)
			continue;
		if (alen < 0)
			return -EPROTO;
		rc = fn((struct nlattr *)((char *)NLMSG_DATA(h) + GENL_HDRLEN), alen, arg);
		if (rc)
			return rc;
	}
	return left == 0 ? 0 : -EPROTO;
}

static int family_attrs(struct nlattr *a, int len, void *arg)
{
	uint16_t *family = arg;

	for (; ATTR_OK(a, len); a = ATTR_NEXT(a, len))
		if (ATTR_TYPE(a) == CTRL_ATTR_FAMILY_ID) {
			if (bp_nl_u16(ATTR(a), family))
				return -EPROTO;
			return *family >= NLMSG_MIN_TYPE ? 0 : -EPROTO;
		}
	return 0;
}

int bp_wifi_parse_family(void *buf, size_t len, uint16_t *family)
{
	*family = 0;
	return each_message(buf, len, family_attrs, family);
}

/* The SSID's n bytes as iw prints them: printable ASCII as is, the rest (and \\) as \\xNN. */
static int ssid_text(const unsigned char *s, size_t n, char *out, size_t outlen)
{
	size_t used = 0;

	if (n > 32)
		return -EPROTO;
	for (size_t i = 0; i < n && used + 5 <= outlen; i++) {
		if (s[i] >= 0x20 && s[i] < 0x7f && s[i] != '\\')
			out[used++] = (char)s[i];
		else
			used += (size_t)snprintf(out + used, outlen - used, "\\x%02x", s[i]);
	}
	out[used] = '\0';
	return 0;
}

static int width_mhz(uint32_t w)
{
	switch (w) {
	case NL80211_CHAN_WIDTH_20_NOHT:
	case NL80211_CHAN_WIDTH_20: return 20;
	case NL80211_CHAN_WIDTH_40: return 40;
	case NL80211_CHAN_WIDTH_80: return 80;
	case NL80211_CHAN_WIDTH_80P80:	/* two 80 MHz segments: 160 MHz in all */
	case NL80211_CHAN_WIDTH_160: return 160;
	case NL80211_CHAN_WIDTH_5: return 5;
	case NL80211_CHAN_WIDTH_10: return 10;
	}
	return w == 13 ? 320 : 0;	/* NL80211_CHAN_WIDTH_320 (6.0's headers); others unknown */
}

static int interface_attrs(struct nlattr *a, int len, void *arg)
{
	struct bp_wifi_link *l = arg;
	uint32_t v;

	for (; ATTR_OK(a, len); a = ATTR_NEXT(a, len)) {
		switch (ATTR_TYPE(a)) {
		case NL80211_ATTR_SSID:
			if (ssid_text(ATTR_DATA(a), ATTR_LEN(a), l->ssid, sizeof(l->ssid)))
				return -EPROTO;
			break;
		case NL80211_ATTR_WIPHY_FREQ:
			if (bp_nl_u32(ATTR(a), &v) || v == 0 || v > 100000)
				return -EPROTO;
			l->freq_mhz = (int)v;
			break;
		case NL80211_ATTR_CHANNEL_WIDTH:
			if (bp_nl_u32(ATTR(a), &v))
				return -EPROTO;
			l->width_mhz = width_mhz(v);
			break;
		}
	}
	return 0;
}

int bp_wifi_parse_interface(void *buf, size_t len, struct bp_wifi_link *out)
{
	int rc = each_message(buf, len, interface_attrs, out);

	return rc == 1 ? 0 : rc;
}

/* NL80211_STA_INFO_TX_BITRATE's or RX_BITRATE's nest: the rate, its MCS and mode */
static int rate_info(struct nlattr *nest, struct bp_wifi_rate *r)
{
	int len = (int)ATTR_LEN(nest);
	uint32_t v32;
	uint16_t v16;
	uint8_t mcs;

	for (struct nlattr *a = ATTR_DATA(nest); ATTR_OK(a, len); a = ATTR_NEXT(a, len)) {
		int max = -1;
		const char *mode = NULL;

		switch (ATTR_TYPE(a)) {
		case NL80211_RATE_INFO_BITRATE32:
			if (bp_nl_u32(ATTR(a), &v32) || v32 > BITRATE32_MAX)
				return -EPROTO;
			r->mbps = v32 / 10.0;
			continue;
		case NL80211_RATE_INFO_BITRATE:
			/* the 16-bit field, which BITRATE32 supersedes when both come */
			if (bp_nl_u16(ATTR(a), &v16))
				return -EPROTO;
			if (isnan(r->mbps))
				r->mbps = v16 / 10.0;
			continue;
		case NL80211_RATE_INFO_MCS: max = HT_MCS_MAX; mode = "HT"; break;
		case NL80211_RATE_INFO_VHT_MCS: max = VHT_MCS_MAX; mode = "VHT"; break;
		case NL80211_RATE_INFO_HE_MCS: max = HE_MCS_MAX; mode = "HE"; break;
		case NL80211_RATE_INFO_EHT_MCS: max = EHT_MCS_MAX; mode = "EHT"; break;
		default: continue;
		}
		if (bp_nl_u8(ATTR(a), &mcs) || mcs > max)
			return -EPROTO;
		r->mcs = mcs;
		r->mode = mode;
	}
	return 0;
}

static int sta_info(struct nlattr *nest, struct bp_wifi_link *l)
{
	int len = (int)ATTR_LEN(nest), rc = 0;
	uint8_t v;

	for (struct nlattr *a = ATTR_DATA(nest); !rc && ATTR_OK(a, len); a = ATTR_NEXT(a, len)) {
		switch (ATTR_TYPE(a)) {
		case NL80211_STA_INFO_SIGNAL:
			/* dBm as a signed byte; above 0 dBm at a receiver is no reading */
			if (bp_nl_u8(ATTR(a), &v) || (int8_t)v > 0)
				return -EPROTO;
			l->signal_dbm = (int8_t)v;
			break;
		case NL80211_STA_INFO_TX_BITRATE:
			rc = rate_info(a, &l->tx);
			break;
		case NL80211_STA_INFO_RX_BITRATE:
			rc = rate_info(a, &l->rx);
			break;
		}
	}
	return rc;
}

static int station_attrs(struct nlattr *a, int len, void *arg)
{
	struct bp_wifi_link *l = arg;
	int rc = 0;

	/* a client has one station, its access point; an access point's first client stands in */
	if (l->associated)
		return 0;
	for (; !rc && ATTR_OK(a, len); a = ATTR_NEXT(a, len)) {
		const unsigned char *m = ATTR_DATA(a);

		if (ATTR_TYPE(a) == NL80211_ATTR_MAC) {
			if (ATTR_LEN(a) < 6)
				return -EPROTO;
			snprintf(l->bssid, sizeof(l->bssid), "%02x:%02x:%02x:%02x:%02x:%02x",
				 m[0], m[1], m[2], m[3], m[4], m[5]);
		} else if (ATTR_TYPE(a) == NL80211_ATTR_STA_INFO) {
			rc = sta_info(a, l);
		}
	}
	if (!rc && !l->bssid[0])
		return -EPROTO;
	l->associated = rc == 0;
	return rc;
}

int bp_wifi_parse_stations(void *buf, size_t len, struct bp_wifi_link *out)
{
	return each_message(buf, len, station_attrs, out);
}

/* The SSID element (id 0) among a BSS's information elements, walked within their bytes */
static int ssid_element(struct nlattr *ies, struct bp_wifi_link *l)
{
	const unsigned char *p = ATTR_DATA(ies);
	size_t n = ATTR_LEN(ies);

	for (size_t i = 0; i + 2 <= n; i += 2 + (size_t)p[i + 1]) {
		size_t elen = p[i + 1];

		if (i + 2 + elen > n)
			return -EPROTO;
		if (p[i] != 0)
			continue;
		return ssid_text(p + i + 2, elen, l->ssid, sizeof(l->ssid));
	}
	return 0;
}

static int scan_attrs(struct nlattr *a, int len, void *arg)
{
	struct bp_wifi_link *l = arg;

	for (; ATTR_OK(a, len); a = ATTR_NEXT(a, len)) {
		struct nlattr *ies = NULL;
		int blen = (int)ATTR_LEN(a);
		uint32_t status = UINT32_MAX;

		if (ATTR_TYPE(a) != NL80211_ATTR_BSS)
			continue;
		for (struct nlattr *b = ATTR_DATA(a); ATTR_OK(b, blen); b = ATTR_NEXT(b, blen)) {
			if (ATTR_TYPE(b) == NL80211_BSS_STATUS && bp_nl_u32(ATTR(b), &status))
				return -EPROTO;
			if (ATTR_TYPE(b) == NL80211_BSS_INFORMATION_ELEMENTS)
				ies = b;
		}
		/* the network this interface is in: associated with, or joined (IBSS) */
		if ((status == NL80211_BSS_STATUS_ASSOCIATED ||
		     status == NL80211_BSS_STATUS_IBSS_JOINED) && ies && !l->ssid[0])
			return ssid_element(ies, l);
	}
	return 0;
}

int bp_wifi_parse_scan(void *buf, size_t len, struct bp_wifi_link *out)
{
	return each_message(buf, len, scan_attrs, out);
}

const char *bp_wifi_band(int f)
{
	if (f >= 2400 && f < 2500)
		return "2.4GHz";
	if (f >= 5150 && f < 5925)
		return "5GHz";
	if (f >= 5925 && f <= 7125)
		return "6GHz";
	if (f >= 57000 && f <= 71000)
		return "60GHz";
	return NULL;
}

int bp_wifi_channel(int f)
{
	if (f == 2484)
		return 14;
	if (f >= 2412 && f < 2484)
		return (f - 2407) / 5;
	if (f == 5935)	/* 6 GHz channel 2, below the 6 GHz band's first 20 MHz channel */
		return 2;
	if (f >= 5150 && f < 5925)
		return (f - 5000) / 5;
	if (f >= 5925 && f <= 7125)
		return (f - 5950) / 5;
	if (f >= 57000 && f <= 71000)
		return (f - 56160) / 2160;
	return 0;
}

/* ---- asking the kernel ---------------------------------------------------------------- */

struct request {
	struct nlmsghdr nh;
	struct genlmsghdr g;
	char attrs[64];
};

static void put_attr(struct request *q, uint16_t type, const void *data, size_t len)
{
	struct nlattr *a = (struct nlattr *)((char *)q + NLMSG_ALIGN(q->nh.nlmsg_len));

	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	memcpy(ATTR_DATA(a), data, len);
	q->nh.nlmsg_len = NLMSG_ALIGN(q->nh.nlmsg_len) + NLA_ALIGN(a->nla_len);
}

static void request_init(struct request *q, uint16_t type, uint8_t cmd, uint16_t flags)
{
	memset(q, 0, sizeof(*q));
	q->nh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	q->nh.nlmsg_type = type;
	q->nh.nlmsg_flags = NLM_F_REQUEST | flags;
	q->nh.nlmsg_seq = 1;
	q->g.cmd = cmd;
	q->g.version = 1;
}

/* Sends q and hands each datagram of the answer to parse until it ends (1) or fails. */
static int ask(int fd, struct request *q, int (*parse)(void *buf, size_t len, void *arg),
	       void *arg)
{
	size_t cap = 32 * 1024;
	char *buf = malloc(cap);
	int rc = 0;

	if (!buf)
		return -ENOMEM;
	if (send(fd, q, q->nh.nlmsg_len, 0) < 0)
		rc = -errno;
	/* a bounded number of datagrams: a station dump of a busy access point ends too */
	for (int i = 0; rc == 0 && i < 1024; i++) {
		ssize_t n = recv(fd, buf, cap, MSG_TRUNC);

		if (n < 0)
			rc = -errno;
		else if ((size_t)n > cap)
			rc = -EMSGSIZE;
		else
			rc = parse(buf, (size_t)n, arg);
	}
	free(buf);
	return rc < 0 ? rc : 0;
}

static int parse_family(void *buf, size_t len, void *arg)
{
	uint16_t *family = arg, got;
	int rc = bp_wifi_parse_family(buf, len, &got);

	if (got)
		*family = got;
	/* the answer to a plain request is one message and an acknowledgement, or just one */
	return rc == 0 && *family ? 1 : rc;
}

static int parse_interface(void *buf, size_t len, void *arg)
{
	int rc = each_message(buf, len, interface_attrs, arg);

	return rc == 0 ? 1 : rc;
}

static int parse_stations(void *buf, size_t len, void *arg)
{
	return bp_wifi_parse_stations(buf, len, arg);
}

static int parse_scan(void *buf, size_t len, void *arg)
{
	return bp_wifi_parse_scan(buf, len, arg);
}

int bp_wifi_link_read(int ifindex, struct bp_wifi_link *out)
{
	struct timeval tv = { .tv_sec = 1 };
	struct request q;
	uint16_t family = 0;
	uint32_t idx = (uint32_t)ifindex;
	int fd, rc;

	bp_wifi_link_init(out);
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0)
		return -errno;
	/* the kernel answers at once; the timeout only bounds a broken sandbox */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	request_init(&q, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 0);
	put_attr(&q, CTRL_ATTR_FAMILY_NAME, NL80211_GENL_NAME, sizeof(NL80211_GENL_NAME));
	rc = ask(fd, &q, parse_family, &family);
	if (rc == -ENOENT || (!rc && !family))
		rc = -ENOENT;	/* no nl80211: no wireless stack in this kernel */
	if (!rc) {
		request_init(&q, family, NL80211_CMD_GET_INTERFACE, 0);
		put_attr(&q, NL80211_ATTR_IFINDEX, &idx, sizeof(idx));
		rc = ask(fd, &q, parse_interface, out);
		/* the kernel's answer for an interface without a wireless device */
		if (rc == -ENODEV || rc == -EINVAL)
			rc = -EOPNOTSUPP;
	}
	if (!rc) {
		request_init(&q, family, NL80211_CMD_GET_STATION, NLM_F_DUMP);
		put_attr(&q, NL80211_ATTR_IFINDEX, &idx, sizeof(idx));
		rc = ask(fd, &q, parse_stations, out);
	}
	/* a client's SSID: in its interface's answer only on newer kernels (6.1's has none),
	 * always in the scan results' BSS it is associated with, as `iw link` reads it */
	if (!rc && !out->ssid[0]) {
		request_init(&q, family, NL80211_CMD_GET_SCAN, NLM_F_DUMP);
		put_attr(&q, NL80211_ATTR_IFINDEX, &idx, sizeof(idx));
		rc = ask(fd, &q, parse_scan, out);
	}
	close(fd);
	return rc;
}

static json_t *rate_or_null(double mbps)
{
	return isnan(mbps) ? json_null() : json_real(mbps);
}

json_t *bp_wifi_link_to_json(const struct bp_wifi_link *l)
{
	json_t *o = json_object();

	bp_json_put(o, "associated", json_boolean(l->associated));
	bp_json_put(o, "ssid", bp_json_str_or_null(l->ssid));
	bp_json_put(o, "bssid", bp_json_str_or_null(l->bssid));
	bp_json_put(o, "freq_mhz", l->freq_mhz ? json_integer(l->freq_mhz) : json_null());
	bp_json_put(o, "band", bp_json_str_or_null(bp_wifi_band(l->freq_mhz)));
	bp_json_put(o, "channel", bp_wifi_channel(l->freq_mhz) ?
		    json_integer(bp_wifi_channel(l->freq_mhz)) : json_null());
	bp_json_put(o, "width_mhz", l->width_mhz ? json_integer(l->width_mhz) : json_null());
	bp_json_put(o, "signal_dbm", l->signal_dbm <= 0 ? json_integer(l->signal_dbm) : json_null());
	bp_json_put(o, "tx_bitrate_mbps", rate_or_null(l->tx.mbps));
	bp_json_put(o, "tx_mcs", l->tx.mcs >= 0 ? json_integer(l->tx.mcs) : json_null());
	bp_json_put(o, "tx_mode", bp_json_str_or_null(l->tx.mode));
	bp_json_put(o, "rx_bitrate_mbps", rate_or_null(l->rx.mbps));
	bp_json_put(o, "rx_mcs", l->rx.mcs >= 0 ? json_integer(l->rx.mcs) : json_null());
	bp_json_put(o, "rx_mode", bp_json_str_or_null(l->rx.mode));
	return o;
}
