# Sourced by the UDP counting tests (test_udp_count.sh, test_udp_packet.sh): an nftables
# counter of the test's datagrams on a host's input hook, the ground truth their receivers'
# counts are held against. Needs $port (the test's server port) set before nft_rules runs.

# nft_rules: the table, on stdout for `nft -f -`. "udp length > 60" leaves out the stream's
# hello (49 bytes with boardperf's cookie) and the server's answer (12): -l 64 is 72.
nft_rules() {
	cat <<EOF2
table inet bpcount {
	counter to_srv { }
	counter from_srv { }
	chain in {
		type filter hook input priority 0;
		udp dport $port udp length > 60 counter name "to_srv";
		udp sport $port udp length > 60 counter name "from_srv";
	}
}
EOF2
}

# nft_count NS NAME: packets the counter NAME in namespace NS has seen.
nft_count() {
	ip netns exec "$1" nft -j list counter inet bpcount "$2" |
		jq '[.nftables[] | select(.counter) | .counter.packets][0]'
}
