/*
 * A veth end's SIOCETHTOOL answers, recorded on 2026-12-06 (kernel 6.18.44, a rig's bpc0 with
 * GSO, TSO and GRO switched off by `ethtool -K`), and every line `ethtool -k bpc0` (ethtool 6.1)
 * printed at the same moment under a kernel feature's name (its older names made the kernel's:
 * generic-receive-offload is rx-gro). Its aggregate lines (tx-checksumming, scatter-gather,
 * tcp-segmentation-offload) name no kernel feature and are not here.
 */
#ifndef BP_TEST_NIC_FEATURES_VETH_H
#define BP_TEST_NIC_FEATURES_VETH_H

static const char *const veth_names[] = {
	"tx-scatter-gather", "tx-checksum-ipv4", "", "tx-checksum-ip-generic",
	"tx-checksum-ipv6", "highdma", "tx-scatter-gather-fraglist", "tx-vlan-hw-insert",
	"rx-vlan-hw-parse", "rx-vlan-filter", "vlan-challenged", "tx-generic-segmentation", "",
	"", "rx-gro", "rx-lro", "tx-tcp-segmentation", "tx-gso-robust",
	"tx-tcp-ecn-segmentation", "tx-tcp-mangleid-segmentation", "tx-tcp6-segmentation",
	"tx-fcoe-segmentation", "tx-gre-segmentation", "tx-gre-csum-segmentation",
	"tx-ipxip4-segmentation", "tx-ipxip6-segmentation", "tx-udp_tnl-segmentation",
	"tx-udp_tnl-csum-segmentation", "tx-gso-partial", "tx-tunnel-remcsum-segmentation",
	"tx-sctp-segmentation", "tx-esp-segmentation", "", "tx-udp-segmentation",
	"tx-gso-list", "tx-tcp-accecn-segmentation", "tx-checksum-fcoe-crc",
	"tx-checksum-sctp", "rx-ntuple-filter", "rx-hashing", "rx-checksum", "tx-nocache-copy",
	"loopback", "rx-fcs", "rx-all", "tx-vlan-stag-hw-insert", "rx-vlan-stag-hw-parse",
	"rx-vlan-stag-filter", "l2-fwd-offload", "hw-tc-offload", "esp-hw-offload",
	"esp-tx-csum-hw-offload", "rx-udp_tunnel-port-offload", "tls-hw-tx-offload",
	"tls-hw-rx-offload", "rx-gro-hw", "tls-hw-record", "rx-gro-list", "macsec-hw-offload",
	"rx-udp-gro-forwarding", "hsr-tag-ins-offload", "hsr-tag-rm-offload",
	"hsr-fwd-offload", "hsr-dup-offload",
};

/* available, requested, active, never_changed of each 32 features */
static const struct ethtool_get_features_block veth_blocks[] = {
	{ 0x4fdd49e9, 0x4fc001e9, 0x4fc001e9, 0x00000400 },
	{ 0x0a00632e, 0x00006126, 0x00006126, 0x00000000 },
};

static const char *const veth_ethtool_k[][2] = {
	{ "rx-checksum", "on" },
	{ "tx-checksum-ipv4", "off [fixed]" },
	{ "tx-checksum-ip-generic", "on" },
	{ "tx-checksum-ipv6", "off [fixed]" },
	{ "tx-checksum-fcoe-crc", "off [fixed]" },
	{ "tx-checksum-sctp", "on" },
	{ "tx-scatter-gather", "on" },
	{ "tx-scatter-gather-fraglist", "on" },
	{ "tx-tcp-segmentation", "off" },
	{ "tx-tcp-ecn-segmentation", "off" },
	{ "tx-tcp-mangleid-segmentation", "off" },
	{ "tx-tcp6-segmentation", "off" },
	{ "tx-tcp-accecn-segmentation", "off" },
	{ "tx-generic-segmentation", "off" },
	{ "rx-gro", "off" },
	{ "rx-lro", "off [fixed]" },
	{ "rx-vlan-hw-parse", "on" },
	{ "tx-vlan-hw-insert", "on" },
	{ "rx-ntuple-filter", "off [fixed]" },
	{ "rx-hashing", "off [fixed]" },
	{ "highdma", "on" },
	{ "rx-vlan-filter", "off [fixed]" },
	{ "vlan-challenged", "off [fixed]" },
	{ "tx-gso-robust", "off [fixed]" },
	{ "tx-fcoe-segmentation", "off [fixed]" },
	{ "tx-gre-segmentation", "on" },
	{ "tx-gre-csum-segmentation", "on" },
	{ "tx-ipxip4-segmentation", "on" },
	{ "tx-ipxip6-segmentation", "on" },
	{ "tx-udp_tnl-segmentation", "on" },
	{ "tx-udp_tnl-csum-segmentation", "on" },
	{ "tx-gso-partial", "off [fixed]" },
	{ "tx-tunnel-remcsum-segmentation", "off [fixed]" },
	{ "tx-sctp-segmentation", "on" },
	{ "tx-esp-segmentation", "off [fixed]" },
	{ "tx-udp-segmentation", "on" },
	{ "tx-gso-list", "on" },
	{ "tx-nocache-copy", "off" },
	{ "loopback", "off [fixed]" },
	{ "rx-fcs", "off [fixed]" },
	{ "rx-all", "off [fixed]" },
	{ "tx-vlan-stag-hw-insert", "on" },
	{ "rx-vlan-stag-hw-parse", "on" },
	{ "rx-vlan-stag-filter", "off [fixed]" },
	{ "l2-fwd-offload", "off [fixed]" },
	{ "hw-tc-offload", "off [fixed]" },
	{ "esp-hw-offload", "off [fixed]" },
	{ "esp-tx-csum-hw-offload", "off [fixed]" },
	{ "rx-udp_tunnel-port-offload", "off [fixed]" },
	{ "tls-hw-tx-offload", "off [fixed]" },
	{ "tls-hw-rx-offload", "off [fixed]" },
	{ "rx-gro-hw", "off [fixed]" },
	{ "tls-hw-record", "off [fixed]" },
	{ "rx-gro-list", "off" },
	{ "macsec-hw-offload", "off [fixed]" },
	{ "rx-udp-gro-forwarding", "off" },
	{ "hsr-tag-ins-offload", "off [fixed]" },
	{ "hsr-tag-rm-offload", "off [fixed]" },
	{ "hsr-fwd-offload", "off [fixed]" },
	{ "hsr-dup-offload", "off [fixed]" },
};

#endif
