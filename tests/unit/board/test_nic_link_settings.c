/*
 * A NIC's negotiation (board/nic_link_settings.h) from replayed SIOCETHTOOL answers: the two
 * steps of ETHTOOL_GLINKSETTINGS as a 6.18 kernel answers them for a veth end (four mask
 * words; autoneg off, twisted pair, as `ethtool` prints it) and for a gigabit PHY
 * autonegotiating; a kernel older than the request answering ETHTOOL_GSET; answers out of
 * their domain refused.
 */
#include <errno.h>
#include <linux/ethtool.h>
#include <stdint.h>
#include <string.h>

#include "board/nic_link_settings.h"
#include "tap.h"

struct replay {
	int8_t words;		/* what the handshake says (negated by the fake) */
	int8_t second_words;	/* what the second answer says; 0: as asked */
	uint8_t autoneg, port;
	bool old_kernel;	/* GLINKSETTINGS unknown: only GSET */
	int err;		/* every request fails so */
	int calls;
};

static int fake(void *ctx, const char *ifname, void *data)
{
	struct replay *r = ctx;
	uint32_t cmd;

	(void)ifname;
	r->calls++;
	if (r->err)
		return r->err;
	memcpy(&cmd, data, sizeof(cmd));
	if (cmd == ETHTOOL_GLINKSETTINGS && !r->old_kernel) {
		struct ethtool_link_settings *q = data;

		if (q->link_mode_masks_nwords == 0) {
			/* the handshake: only the negated count, as the kernel writes it */
			memset(q, 0, sizeof(*q));
			q->cmd = cmd;
			q->link_mode_masks_nwords = (int8_t)-r->words;
			return 0;
		}
		if (q->link_mode_masks_nwords != r->words)
			return -EINVAL;
		q->speed = 10000;
		q->duplex = DUPLEX_FULL;
		q->autoneg = r->autoneg;
		q->port = r->port;
		if (r->second_words)
			q->link_mode_masks_nwords = r->second_words;
		return 0;
	}
	if (cmd == ETHTOOL_GSET && r->old_kernel) {
		struct ethtool_cmd *q = data;

		q->autoneg = r->autoneg;
		q->port = r->port;
		return 0;
	}
	return -EOPNOTSUPP;
}

static void answers(void)
{
	struct replay r = { .words = 4, .autoneg = AUTONEG_DISABLE, .port = PORT_TP };
	struct bp_nic_link_settings ls;
	json_t *j;

	CHECK_INT(bp_nic_link_settings_read("bpc0", fake, &r, &ls), 0);
	CHECK_INT(r.calls, 2);
	CHECK_INT(ls.autoneg, 0);
	CHECK_STR(ls.port, "tp");
	j = bp_nic_link_settings_to_json(&ls);
	CHECK_STR(json_string_value(json_object_get(j, "autoneg")), "off");
	CHECK_STR(json_string_value(json_object_get(j, "port")), "tp");
	json_decref(j);

	r = (struct replay){ .words = 4, .autoneg = AUTONEG_ENABLE, .port = PORT_MII };
	CHECK_INT(bp_nic_link_settings_read("eth0", fake, &r, &ls), 0);
	CHECK_INT(ls.autoneg, 1);
	CHECK_STR(ls.port, "mii");
	/* a port newer than this build is unknown, not an error */
	r = (struct replay){ .words = 4, .autoneg = AUTONEG_ENABLE, .port = 0x42 };
	CHECK_INT(bp_nic_link_settings_read("eth0", fake, &r, &ls), 0);
	CHECK(ls.port == NULL);
	j = bp_nic_link_settings_to_json(&ls);
	CHECK(json_is_null(json_object_get(j, "port")));
	json_decref(j);

	r = (struct replay){ .old_kernel = true, .autoneg = AUTONEG_ENABLE, .port = PORT_FIBRE };
	CHECK_INT(bp_nic_link_settings_read("eth0", fake, &r, &ls), 0);
	CHECK_INT(r.calls, 2);
	CHECK_INT(ls.autoneg, 1);
	CHECK_STR(ls.port, "fibre");
}

static void refused(void)
{
	struct replay r;
	struct bp_nic_link_settings ls;
	json_t *j;

	/* a bridge: no link settings by either request */
	r = (struct replay){ .err = -EOPNOTSUPP };
	CHECK_INT(bp_nic_link_settings_read("br0", fake, &r, &ls), -EOPNOTSUPP);
	CHECK_INT(ls.autoneg, -1);
	j = bp_nic_link_settings_to_json(&ls);
	CHECK(json_is_null(json_object_get(j, "autoneg")));
	json_decref(j);

	/* a handshake not negated, or past what is believed: nothing asked after it */
	r = (struct replay){ .words = -4 };
	CHECK_INT(bp_nic_link_settings_read("x", fake, &r, &ls), -EPROTO);
	CHECK_INT(r.calls, 1);
	r = (struct replay){ .words = 0 };
	CHECK_INT(bp_nic_link_settings_read("x", fake, &r, &ls), -EPROTO);
	r = (struct replay){ .words = 33 };
	CHECK_INT(bp_nic_link_settings_read("x", fake, &r, &ls), -EPROTO);
	CHECK_INT(r.calls, 1);
	/* the count changed between the steps (a driver reloaded) */
	r = (struct replay){ .words = 4, .second_words = 5 };
	CHECK_INT(bp_nic_link_settings_read("x", fake, &r, &ls), -EPROTO);
	/* autoneg neither on nor off, by either request */
	r = (struct replay){ .words = 4, .autoneg = 2 };
	CHECK_INT(bp_nic_link_settings_read("x", fake, &r, &ls), -EPROTO);
	r = (struct replay){ .old_kernel = true, .autoneg = 7 };
	CHECK_INT(bp_nic_link_settings_read("x", fake, &r, &ls), -EPROTO);

	r = (struct replay){ .err = -ENODEV };
	CHECK_INT(bp_nic_link_settings_read("gone0", fake, &r, &ls), -ENODEV);
}

int main(void)
{
	answers();
	refused();
	return tap_done();
}
