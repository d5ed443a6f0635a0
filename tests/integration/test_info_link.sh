#!/usr/bin/env bash
# The link under the figure (issue 36): info's offload features of a NIC against what
# `ethtool -k` prints for it at the same moment, on a rig's veth end with the rig's offloads
# off (GSO/TSO/GRO requested off) and with the kernel's defaults (--offload on): every line
# ethtool prints under a kernel feature's name (and the seven it prints under an older one:
# rx-checksumming is rx-checksum, generic-receive-offload rx-gro, ...) reads the same in
# `info --json`'s env.inventory.nics[].features, and the text output keeps them out (80
# columns). Needs root and ethtool; skips otherwise.
# Usage: test_info_link.sh BOARDPERF
set -u
bp=$(realpath "$1")
here=$(dirname "$0")
. "$here/tap.sh"
. "$here/../rig/rig.sh"

checks=("offloads off: info's features of bpc0 = ethtool -k's"
	"offloads on: info's features of bpc0 = ethtool -k's"
	"the two rigs differ where ethtool -K changed them"
	"info's text leaves the features out (80 columns)")
if ! rig_require ethtool jq; then
	rig_tap_skip "${checks[@]}"
	tap_done
	exit
fi

# ethtool -k bpc0 in the client, as "name state" lines, its older names made the kernel's
ethtool_k() {
	rig_exec client ethtool -k bpc0 | awk -F': ' 'BEGIN {
		a["rx-checksumming"] = "rx-checksum"; a["generic-receive-offload"] = "rx-gro"
		a["large-receive-offload"] = "rx-lro"; a["rx-vlan-offload"] = "rx-vlan-hw-parse"
		a["tx-vlan-offload"] = "tx-vlan-hw-insert"; a["ntuple-filters"] = "rx-ntuple-filter"
		a["receive-hashing"] = "rx-hashing"; a["generic-segmentation-offload"] = "tx-generic-segmentation" }
	NR > 1 {
		n = $1; gsub(/^[ \t]+/, "", n)
		if (n in a) n = a[n]
		print n "\t" $2 }' | sort -u
}
# info's features of bpc0, the same form
info_k() {
	rig_exec client "$bp" info --json | jq -r '.env.inventory.nics[] | select(.name == "bpc0")
		| .features | to_entries[] | "\(.key)\t\(.value)"' | sort
}
# compare WHAT FILE: every line ethtool prints under a name info has reads the same there
# (its aggregate lines, tx-checksumming, scatter-gather, tcp-segmentation-offload, are no
# kernel name), and those are most of them; info's lines kept in FILE
compare() {
	local e i r n bad
	e=$(ethtool_k) i=$(info_k)
	r=$(awk -F'\t' 'NR == FNR { s[$1] = $2; next }
		($1 in s) { n++; if (s[$1] != $2) bad = bad sprintf("%s: info %s, ethtool %s; ", $1, s[$1], $2) }
		END { print n + 0; print bad }' <(printf '%s\n' "$i") <(printf '%s\n' "$e"))
	n=$(head -1 <<<"$r") bad=$(sed -n 2p <<<"$r")
	[ "$n" -ge 40 ] && [ -z "$bad" ]
	ok $? "$1 ($n lines compared${bad:+; differ: $bad})"
	printf '%s\n' "$i" >"$tap_tmp/$2"
}

rig_up
compare "${checks[0]}" off.txt
rig_exec client "$bp" info >"$tap_tmp/info.txt" 2>&1
rig_down
rig_up --offload on
compare "${checks[1]}" on.txt
rig_down
d=$(diff "$tap_tmp/off.txt" "$tap_tmp/on.txt" | grep -c '^>')
# (a veth's GRO is off either way: it has it only with XDP)
grep -q $'^tx-generic-segmentation\toff' "$tap_tmp/off.txt" &&
	grep -q $'^tx-generic-segmentation\ton' "$tap_tmp/on.txt" &&
	grep -q $'^tx-tcp-segmentation\toff' "$tap_tmp/off.txt" &&
	grep -q $'^tx-tcp-segmentation\ton' "$tap_tmp/on.txt" && [ "$d" -ge 3 ]
ok $? "${checks[2]} ($d features changed; tx-generic-segmentation and tx-tcp-segmentation off, then on)"
w=$(awk '{ print length }' "$tap_tmp/info.txt" | sort -n | tail -1)
! grep -q 'rx-gro\|tx-checksum' "$tap_tmp/info.txt" && [ "${w:-999}" -le 80 ]
ok $? "${checks[3]} (widest line $w)"
tap_done
