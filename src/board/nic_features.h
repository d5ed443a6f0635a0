/*
 * A NIC's offload features as the kernel keeps them, named by the kernel's own strings: what
 * `ethtool -k` prints, read without ethtool (a board image often has none). The seed's
 * Cubietruck lost its throughput to a tagged VLAN because its driver tried an offload it
 * could not do: which offloads are on (segmentation, GRO, checksums, scatter-gather, VLAN
 * tag insertion and parsing) belongs beside every network figure.
 *
 * Three SIOCETHTOOL requests: ETHTOOL_GSSET_INFO for how many features (ETH_SS_FEATURES),
 * ETHTOOL_GSTRINGS for their names, ETHTOOL_GFEATURES for four bit words per 32 of them:
 * available (the driver can change it), requested, active, never_changed. A feature is on
 * when active; "fixed" when it is not available or never changes; else "requested on/off"
 * when the request differs from what is active (the driver could not follow) — ethtool's
 * words. The requests go through a function the caller passes, so unit tests replay
 * recorded answers.
 */
#ifndef BP_BOARD_NIC_FEATURES_H
#define BP_BOARD_NIC_FEATURES_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

/* ETH_GSTRING_LEN: a feature's name as the kernel gives it, NUL included */
#define BP_NIC_FEATURE_NAME 32
/* More than any kernel has (6.x: ~65); a count above is not believed */
#define BP_NIC_FEATURES_MAX 1024

struct bp_nic_feature {
	char name[BP_NIC_FEATURE_NAME];	/* "tx-tcp-segmentation", "rx-gro", ... */
	bool on;			/* active */
	bool fixed;			/* not available to change, or never changed */
	bool requested;			/* what was asked for (differs from on when the driver refused) */
};

struct bp_nic_features {
	size_t n;
	struct bp_nic_feature *f;	/* malloc'd, n of them; the kernel's order */
};

/*
 * One SIOCETHTOOL request on interface ifname: data is the ethtool command struct, its
 * first word the command. 0, or a negative errno.
 */
typedef int (*bp_ethtool_fn)(void *ctx, const char *ifname, void *data);

/* The real one: ctx is an int * holding a socket's descriptor (any AF_INET datagram one). */
int bp_ethtool_ioctl(void *ctx, const char *ifname, void *data);

/*
 * The features of ifname. 0, or a negative errno (-EOPNOTSUPP: the driver has no ethtool
 * features; -EPROTO: an answer out of its domain). out is empty on failure.
 */
int bp_nic_features_read(const char *ifname, bp_ethtool_fn fn, void *ctx,
			 struct bp_nic_features *out);

void bp_nic_features_free(struct bp_nic_features *fs);

/* As ethtool -k writes it: "on", "off [fixed]", "off [requested on]". Returns a literal. */
const char *bp_nic_feature_state(const struct bp_nic_feature *f);

/* {"rx-gro": "on", "tx-vlan-hw-insert": "off [fixed]", ...} (new reference) */
json_t *bp_nic_features_to_json(const struct bp_nic_features *fs);

#endif
