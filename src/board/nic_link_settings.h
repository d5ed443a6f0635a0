/*
 * A NIC's negotiation as `ethtool DEV` prints it: whether auto-negotiation is on and which
 * port the link uses. The speed and duplex come from sysfs (board/nic.h); these two do not
 * appear there. A gigabit PHY forced to 100 Mb/s full duplex against an autonegotiating
 * switch falls back to half duplex on the other end: "autoneg": "off" beside a slow figure
 * says why.
 *
 * SIOCETHTOOL's ETHTOOL_GLINKSETTINGS in its two steps (the first asks how many words the
 * link-mode masks take, answered negated; the second reads them), through the function the
 * caller passes (board/nic_features.h), so unit tests replay recorded answers. A kernel
 * without it (before 4.6) answers ETHTOOL_GSET, read in its place.
 */
#ifndef BP_BOARD_NIC_LINK_SETTINGS_H
#define BP_BOARD_NIC_LINK_SETTINGS_H

#include <jansson.h>

#include "board/nic_features.h"

struct bp_nic_link_settings {
	int autoneg;		/* 1 on, 0 off */
	const char *port;	/* "tp", "fibre", "da", "mii", "aui", "bnc", "none", "other"; NULL unknown */
};

/*
 * 0, or a negative errno: the driver's (-EOPNOTSUPP: no link settings, as a bridge), -EPROTO
 * for an answer out of its domain (a mask size not negated, or past what the first step
 * said, an autoneg other than 0 or 1).
 */
int bp_nic_link_settings_read(const char *ifname, bp_ethtool_fn fn, void *ctx,
			      struct bp_nic_link_settings *out);

/* {"autoneg": "on"|"off", "port": ...} (new reference) */
json_t *bp_nic_link_settings_to_json(const struct bp_nic_link_settings *s);

#endif
