#include "board/nic_link_settings.h"

#include <errno.h>
#include <linux/ethtool.h>
#include <stdint.h>
#include <string.h>

#include "board/jsonval.h"

/* More words than any kernel's link-mode masks take (6.x: 4); a count above is not believed */
#define MASK_WORDS_MAX 32

static const char *port_name(uint8_t port)
{
	switch (port) {
	case PORT_TP: return "tp";
	case PORT_AUI: return "aui";
	case PORT_BNC: return "bnc";
	case PORT_MII: return "mii";
	case PORT_FIBRE: return "fibre";
	case PORT_DA: return "da";
	case PORT_NONE: return "none";
	case PORT_OTHER: return "other";
	}
	return NULL;	/* a port newer than this build: unknown, not wrong */
}

static int settle(uint8_t autoneg, uint8_t port, struct bp_nic_link_settings *out)
{
	if (autoneg != AUTONEG_DISABLE && autoneg != AUTONEG_ENABLE)
		return -EPROTO;
	out->autoneg = autoneg == AUTONEG_ENABLE;
	out->port = port_name(port);
	return 0;
}

/* The kernels before ETHTOOL_GLINKSETTINGS (4.6) */
static int read_gset(const char *ifname, bp_ethtool_fn fn, void *ctx,
		     struct bp_nic_link_settings *out)
{
	struct ethtool_cmd q;
	int rc;

	memset(&q, 0, sizeof(q));
	q.cmd = ETHTOOL_GSET;
	rc = fn(ctx, ifname, &q);
	return rc ? rc : settle(q.autoneg, q.port, out);
}

int bp_nic_link_settings_read(const char *ifname, bp_ethtool_fn fn, void *ctx,
			      struct bp_nic_link_settings *out)
{
	/* the header and three masks of the most words believed, aligned as the header wants */
	uint64_t buf[(sizeof(struct ethtool_link_settings) + 3 * MASK_WORDS_MAX * 4 + 7) / 8];
	struct ethtool_link_settings *q = (struct ethtool_link_settings *)buf;
	int words, rc;

	memset(out, 0, sizeof(*out));
	out->autoneg = -1;
	memset(buf, 0, sizeof(buf));
	q->cmd = ETHTOOL_GLINKSETTINGS;
	rc = fn(ctx, ifname, q);
	if (rc == -EOPNOTSUPP)
		return read_gset(ifname, fn, ctx, out);
	if (rc)
		return rc;
	/* the handshake: the kernel says how many words, negated, and fills nothing else */
	words = -q->link_mode_masks_nwords;
	if (words <= 0 || words > MASK_WORDS_MAX)
		return -EPROTO;
	memset(buf, 0, sizeof(buf));
	q->cmd = ETHTOOL_GLINKSETTINGS;
	q->link_mode_masks_nwords = (int8_t)words;
	rc = fn(ctx, ifname, q);
	if (rc)
		return rc;
	if (q->link_mode_masks_nwords != words)
		return -EPROTO;
	return settle(q->autoneg, q->port, out);
}

json_t *bp_nic_link_settings_to_json(const struct bp_nic_link_settings *s)
{
	return json_pack("{s:o, s:o}",
			 "autoneg", s->autoneg < 0 ? json_null() :
				    json_string(s->autoneg ? "on" : "off"),
			 "port", bp_json_str_or_null(s->port));
}
