/*
 * One interface's whole entry, as the inventory lists it and a network result's path names
 * it (board/net_path.h): what sysfs says (board/nic.h), then what only the kernel answers
 * over its interfaces: the negotiation (board/nic_link_settings.h), what the interface stands
 * on (board/nic_links.h), its offload features (board/nic_features.h) and, for a radio, its
 * Wi-Fi link (board/wifi_link.h).
 */
#ifndef BP_BOARD_NIC_ENTRY_H
#define BP_BOARD_NIC_ENTRY_H

#include <jansson.h>

#include "board/nic.h"
#include "board/nic_links.h"

/*
 * nic's entry (new reference). sock: an AF_INET datagram socket for SIOCETHTOOL, or -1 not
 * to ask the kernel (a saved tree's NIC): those facts read null then, as they do where the
 * kernel has none. links: the link table (empty: null facts).
 */
json_t *bp_nic_entry_json(const struct bp_nic_info *nic, int sock,
			  const struct bp_nic_links *links);

/* nic's Wi-Fi link read now ("wifi" of its entry), or JSON null (new reference) */
json_t *bp_nic_wifi_json(const struct bp_nic_info *nic);

#endif
