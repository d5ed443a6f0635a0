/*
 * A NIC's offload features from recorded SIOCETHTOOL answers (board/nic_features.h): a veth
 * pair's end as this machine's kernel (6.18) answered, read back as `ethtool -k` printed it
 * at the same moment; and answers out of their domain (a count of 0 or of 5,000 features,
 * fewer names than said, more feature blocks than asked) refused without reading on.
 */
#include <errno.h>
#include <linux/ethtool.h>
#include <stdint.h>
#include <string.h>

#include "board/nic_features.h"
#include "tap.h"

#include "nic_features_veth.h"

/* What the fake kernel answers, and how it may lie */
struct replay {
	uint32_t n;			/* GSSET_INFO's count */
	const char *const *names;
	const struct ethtool_get_features_block *blocks;
	uint32_t blocks_n;
	bool no_features;		/* GSSET_INFO without ETH_SS_FEATURES */
	int32_t names_len_delta;	/* GSTRINGS says this many more or fewer */
	int err;			/* every request fails so */
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
	if (cmd == ETHTOOL_GSSET_INFO) {
		struct ethtool_sset_info *q = data;

		if (r->no_features) {
			q->sset_mask = 0;
			return 0;
		}
		q->data[0] = r->n;
	} else if (cmd == ETHTOOL_GSTRINGS) {
		struct ethtool_gstrings *q = data;

		/* a real kernel writes its own count of names into a buffer sized for ours */
		for (uint32_t i = 0; i < q->len && i < r->n; i++)
			strncpy((char *)q->data + i * ETH_GSTRING_LEN, r->names[i], ETH_GSTRING_LEN);
		q->len = (uint32_t)((int32_t)q->len + r->names_len_delta);
	} else if (cmd == ETHTOOL_GFEATURES) {
		struct ethtool_gfeatures *q = data;

		if (q->size >= r->blocks_n)
			memcpy(q->features, r->blocks, r->blocks_n * sizeof(*r->blocks));
		q->size = r->blocks_n;
	} else {
		return -EOPNOTSUPP;
	}
	return 0;
}

static struct replay veth(void)
{
	return (struct replay){ .n = sizeof(veth_names) / sizeof(veth_names[0]),
				.names = veth_names, .blocks = veth_blocks,
				.blocks_n = sizeof(veth_blocks) / sizeof(veth_blocks[0]) };
}

/* Every line `ethtool -k` printed for the recorded veth end, name: state. */
static void recorded_veth(void)
{
	struct replay r = veth();
	struct bp_nic_features fs;
	json_t *j;
	size_t named = 0, lines = 0;

	CHECK_INT(bp_nic_features_read("bpc0", fake, &r, &fs), 0);
	CHECK_INT(fs.n, r.n);
	CHECK_INT(r.calls, 3);
	j = bp_nic_features_to_json(&fs);
	for (size_t i = 0; i < fs.n; i++)
		named += fs.f[i].name[0] != '\0';
	CHECK_INT(json_object_size(j), named);
	for (size_t i = 0; i < sizeof(veth_ethtool_k) / sizeof(veth_ethtool_k[0]); i++) {
		const char *want = veth_ethtool_k[i][1];
		const char *got = json_string_value(json_object_get(j, veth_ethtool_k[i][0]));

		if (!got || strcmp(got, want))
			printf("# %s: %s, ethtool -k printed %s\n", veth_ethtool_k[i][0],
			       got ? got : "(none)", want);
		lines += got && !strcmp(got, want);
	}
	CHECK_INT(lines, sizeof(veth_ethtool_k) / sizeof(veth_ethtool_k[0]));
	json_decref(j);
	bp_nic_features_free(&fs);
	CHECK(fs.f == NULL && fs.n == 0);
}

/* Answers out of their domain end the reading: no names read past what was said. */
static void refused(void)
{
	struct replay r;
	struct bp_nic_features fs;

	r = veth();
	r.no_features = true;
	CHECK_INT(bp_nic_features_read("x", fake, &r, &fs), -EOPNOTSUPP);
	CHECK(fs.f == NULL && fs.n == 0);

	r = veth();
	r.n = 0;
	CHECK_INT(bp_nic_features_read("x", fake, &r, &fs), -EPROTO);
	r.n = BP_NIC_FEATURES_MAX + 1;
	r.calls = 0;
	CHECK_INT(bp_nic_features_read("x", fake, &r, &fs), -EPROTO);
	CHECK_INT(r.calls, 1);	/* nothing asked after a count not believed */

	r = veth();
	r.names_len_delta = -1;
	CHECK_INT(bp_nic_features_read("x", fake, &r, &fs), -EPROTO);
	CHECK(fs.f == NULL);
	r = veth();
	r.names_len_delta = 1;
	CHECK_INT(bp_nic_features_read("x", fake, &r, &fs), -EPROTO);

	/* a kernel with more features than it counted a moment ago (a driver reloaded) */
	r = veth();
	r.blocks_n++;
	CHECK_INT(bp_nic_features_read("x", fake, &r, &fs), -EPROTO);

	r = veth();
	r.err = -ENODEV;
	CHECK_INT(bp_nic_features_read("gone0", fake, &r, &fs), -ENODEV);
	CHECK(fs.f == NULL);
}

/*
 * never_changed alone makes a feature fixed: the recorded veth's one such (vlan-challenged,
 * bit 10) also answers not available, so here it is made available, then not never_changed.
 */
static void never_changed(void)
{
	struct ethtool_get_features_block b[sizeof(veth_blocks) / sizeof(veth_blocks[0])];
	struct replay r = veth();
	struct bp_nic_features fs;

	memcpy(b, veth_blocks, sizeof(b));
	b[0].available |= 1U << 10;
	r.blocks = b;
	CHECK_STR(veth_names[10], "vlan-challenged");
	CHECK_INT(bp_nic_features_read("x", fake, &r, &fs), 0);
	CHECK_STR(bp_nic_feature_state(&fs.f[10]), "off [fixed]");
	bp_nic_features_free(&fs);
	b[0].never_changed &= ~(1U << 10);
	CHECK_INT(bp_nic_features_read("x", fake, &r, &fs), 0);
	CHECK_STR(bp_nic_feature_state(&fs.f[10]), "off");
	bp_nic_features_free(&fs);
}

/* ethtool's words for each state */
static void states(void)
{
	struct bp_nic_feature f = { .on = true, .requested = true };

	CHECK_STR(bp_nic_feature_state(&f), "on");
	f.on = f.requested = false;
	CHECK_STR(bp_nic_feature_state(&f), "off");
	f.requested = true;
	CHECK_STR(bp_nic_feature_state(&f), "off [requested on]");
	f.on = true;
	f.requested = false;
	CHECK_STR(bp_nic_feature_state(&f), "on [requested off]");
	f.fixed = true;
	CHECK_STR(bp_nic_feature_state(&f), "on [fixed]");
	f.on = false;
	CHECK_STR(bp_nic_feature_state(&f), "off [fixed]");
}

int main(void)
{
	recorded_veth();
	refused();
	never_changed();
	states();
	return tap_done();
}
