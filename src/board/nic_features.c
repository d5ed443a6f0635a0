#include "board/nic_features.h"

#include <errno.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "board/sysfs.h"

int bp_ethtool_ioctl(void *ctx, const char *ifname, void *data)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	if (strlen(ifname) >= sizeof(ifr.ifr_name))
		return -ENAMETOOLONG;
	bp_strlcpy(ifr.ifr_name, ifname, sizeof(ifr.ifr_name));
	ifr.ifr_data = data;
	return ioctl(*(int *)ctx, SIOCETHTOOL, &ifr) < 0 ? -errno : 0;
}

/* How many features the kernel names for ifname (ETH_SS_FEATURES), checked in its domain. */
static int feature_count(const char *ifname, bp_ethtool_fn fn, void *ctx, size_t *n)
{
	/* the header and room for the one count asked for, aligned as the header wants */
	uint64_t buf[(sizeof(struct ethtool_sset_info) + sizeof(uint32_t) + 7) / 8] = { 0 };
	struct ethtool_sset_info *q = (struct ethtool_sset_info *)buf;
	int rc;

	q->cmd = ETHTOOL_GSSET_INFO;
	q->sset_mask = 1ULL << ETH_SS_FEATURES;
	rc = fn(ctx, ifname, q);
	if (rc)
		return rc;
	if (!(q->sset_mask & (1ULL << ETH_SS_FEATURES)))
		return -EOPNOTSUPP;
	if (q->data[0] == 0 || q->data[0] > BP_NIC_FEATURES_MAX)
		return -EPROTO;
	*n = q->data[0];
	return 0;
}

static int read_names(const char *ifname, bp_ethtool_fn fn, void *ctx,
		      struct bp_nic_features *fs)
{
	struct ethtool_gstrings *q = calloc(1, sizeof(*q) + fs->n * ETH_GSTRING_LEN);
	int rc;

	if (!q)
		return -ENOMEM;
	q->cmd = ETHTOOL_GSTRINGS;
	q->string_set = ETH_SS_FEATURES;
	q->len = (uint32_t)fs->n;
	rc = fn(ctx, ifname, q);
	/* the kernel writes as many as it said; fewer would leave names unset */
	if (!rc && q->len != fs->n)
		rc = -EPROTO;
	for (size_t i = 0; !rc && i < fs->n; i++) {
		const char *s = (const char *)q->data + i * ETH_GSTRING_LEN;

		memcpy(fs->f[i].name, s, ETH_GSTRING_LEN);
		fs->f[i].name[ETH_GSTRING_LEN - 1] = '\0';
	}
	free(q);
	return rc;
}

static int read_bits(const char *ifname, bp_ethtool_fn fn, void *ctx,
		     struct bp_nic_features *fs)
{
	size_t blocks = (fs->n + 31) / 32;
	struct ethtool_gfeatures *q =
		calloc(1, sizeof(*q) + blocks * sizeof(struct ethtool_get_features_block));
	int rc;

	if (!q)
		return -ENOMEM;
	q->cmd = ETHTOOL_GFEATURES;
	q->size = (uint32_t)blocks;
	rc = fn(ctx, ifname, q);
	/* size comes back as the blocks the kernel needs: more than asked, and it wrote none */
	if (!rc && q->size > blocks)
		rc = -EPROTO;
	for (size_t i = 0; !rc && i < fs->n; i++) {
		const struct ethtool_get_features_block *b = &q->features[i / 32];
		uint32_t bit = 1U << (i % 32);

		fs->f[i].on = b->active & bit;
		fs->f[i].requested = b->requested & bit;
		fs->f[i].fixed = !(b->available & bit) || (b->never_changed & bit);
	}
	free(q);
	return rc;
}

int bp_nic_features_read(const char *ifname, bp_ethtool_fn fn, void *ctx,
			 struct bp_nic_features *out)
{
	struct bp_nic_features fs = { 0 };
	int rc = feature_count(ifname, fn, ctx, &fs.n);

	memset(out, 0, sizeof(*out));
	if (rc)
		return rc;
	fs.f = calloc(fs.n, sizeof(*fs.f));
	if (!fs.f)
		return -ENOMEM;
	rc = read_names(ifname, fn, ctx, &fs);
	if (!rc)
		rc = read_bits(ifname, fn, ctx, &fs);
	if (rc) {
		bp_nic_features_free(&fs);
		return rc;
	}
	*out = fs;
	return 0;
}

void bp_nic_features_free(struct bp_nic_features *fs)
{
	free(fs->f);
	fs->f = NULL;
	fs->n = 0;
}

const char *bp_nic_feature_state(const struct bp_nic_feature *f)
{
	if (f->fixed)
		return f->on ? "on [fixed]" : "off [fixed]";
	if (f->requested != f->on)
		return f->on ? "on [requested off]" : "off [requested on]";
	return f->on ? "on" : "off";
}

json_t *bp_nic_features_to_json(const struct bp_nic_features *fs)
{
	json_t *o = json_object();

	/* the kernel leaves unused bits' names empty: ethtool prints none of them */
	for (size_t i = 0; o && i < fs->n; i++)
		if (fs->f[i].name[0])
			json_object_set_new(o, fs->f[i].name,
					    json_string(bp_nic_feature_state(&fs->f[i])));
	return o;
}
