#include "board/nic_entry.h"

#include <net/if.h>

#include "board/jsonval.h"
#include "board/nic_features.h"
#include "board/nic_link_settings.h"
#include "board/wifi_link.h"

/* ifname's offload features, null when the kernel has none for it */
static json_t *features_json(const char *ifname, int sock)
{
	struct bp_nic_features fs;
	json_t *j;

	if (sock < 0 || bp_nic_features_read(ifname, bp_ethtool_ioctl, &sock, &fs))
		return json_null();
	j = bp_nic_features_to_json(&fs);
	bp_nic_features_free(&fs);
	return j ? j : json_null();
}

/* A radio's link now (board/wifi_link.h), null for any other interface or when unreadable */
json_t *bp_nic_wifi_json(const struct bp_nic_info *nic)
{
	struct bp_wifi_link w;
	unsigned idx = nic->wireless ? if_nametoindex(nic->name) : 0;

	if (!idx || bp_wifi_link_read((int)idx, &w))
		return json_null();
	return bp_wifi_link_to_json(&w);
}

json_t *bp_nic_entry_json(const struct bp_nic_info *nic, int sock,
			  const struct bp_nic_links *links)
{
	static const struct bp_nic_link unknown = { .vlan_id = -1, .bond_mode = -1 };
	struct bp_nic_link_settings ls = { .autoneg = -1 };
	const struct bp_nic_link *l = bp_nic_links_by_name(links, nic->name);
	json_t *o = bp_nic_to_json(nic);

	if (sock >= 0 && bp_nic_link_settings_read(nic->name, bp_ethtool_ioctl, &sock, &ls))
		ls = (struct bp_nic_link_settings){ .autoneg = -1 };
	json_object_update_new(o, bp_nic_link_settings_to_json(&ls));
	json_object_update_new(o, bp_nic_link_to_json(links, l ? l : &unknown));
	bp_json_put(o, "features", features_json(nic->name, sock));
	bp_json_put(o, "wifi", sock >= 0 ? bp_nic_wifi_json(nic) : json_null());
	return o;
}
