#!/usr/bin/env bash
# The link under the figure (issue 36): info's offload features of a NIC against what
# `ethtool -k` prints for it at the same moment, on a rig's veth end with the rig's offloads
# off (GSO/TSO/GRO requested off) and with the kernel's defaults (--offload on): every line
# ethtool prints under a kernel feature's name (and the seven it prints under an older one:
# rx-checksumming is rx-checksum, generic-receive-offload rx-gro, ...) reads the same in
# `info --json`'s env.inventory.nics[].features, and the text output keeps them out (80
# columns). Then what each interface stands on against `ip -d link`, and its negotiation
# against `ethtool`, in a rig's client with a bridge, a veth pair with one end in it and a
# macvlan on the rig's veth added (this kernel has no 8021q or bonding: VLANs and bonds are
# the VM rig's, tests/vm). Needs root and ethtool; skips otherwise.
# Usage: test_info_link.sh BOARDPERF
set -u
bp=$(realpath "$1")
here=$(dirname "$0")
. "$here/tap.sh"
. "$here/../rig/rig.sh"

checks=("offloads off: info's features of bpc0 = ethtool -k's"
	"offloads on: info's features of bpc0 = ethtool -k's"
	"the two rigs differ where ethtool -K changed them"
	"info's text leaves the features out (80 columns)"
	"info's kind, parent and master of every interface = ip -d link's"
	"info's autoneg and port of every interface = ethtool's"
	"tcp, udp, rr and http results carry their path: bpc0, a veth, its entry"
	"the text says the path in a line of its own; no link-speed on a virtual device"
	"a path through a macvlan names its lower device")
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
# what each interface stands on: a bridge, a veth pair with one end in it, a macvlan on bpc0
rig_exec client sh -e -c 'ip link add bpbr0 type bridge
	ip link add bpv0 type veth peer name bpv1
	ip link set bpv0 master bpbr0
	ip link add link bpc0 name bpmv0 type macvlan'
rig_exec client "$bp" info --json >"$tap_tmp/links.json"
# every network client's result names the path its traffic took (the rig's veth, offloads
# off); then one through the macvlan, its own address in the rig's subnet
rig_bg server "$bp" serve -p 5201 --http 8080 --logfile "$tap_tmp/serve.log"  # port-ok: in the test's own namespaces
rig_wait_port server 5201 && rig_wait_port server 8080  # port-ok: in the test's own namespaces
for t in tcp udp rr http; do
	case $t in
	tcp) args=(tcp -c "$RIG_SERVER_IP" -t 1) ;;
	udp) args=(udp -c "$RIG_SERVER_IP" -t 1 -b 10M) ;;
	rr) args=(rr -c "$RIG_SERVER_IP" -t 1) ;;
	http) args=(http "http://$RIG_SERVER_IP:8080/1k" -t 1 -c 1) ;;
	esac
	rig_exec client "$bp" "${args[@]}" --json 2>>"$tap_tmp/net.err" |
		jq -c --arg t "$t" '{t: $t, path: .env.path, w: [.warnings[].code]}' >>"$tap_tmp/paths.json"
done
rig_exec client "$bp" tcp -c "$RIG_SERVER_IP" -t 1 >"$tap_tmp/tcp.txt" 2>&1
# the client's address moves to the macvlan (the rig's link is a /30)
rig_exec client sh -e -c "ip addr del $RIG_CLIENT_IP/30 dev bpc0
	ip addr add $RIG_CLIENT_IP/30 dev bpmv0; ip link set bpmv0 up"
rig_exec client "$bp" rr -c "$RIG_SERVER_IP" -t 0.5 --json 2>>"$tap_tmp/net.err" |
	jq -c '.env.path' >"$tap_tmp/mv.json"
rig_exec client ip -j -d link >"$tap_tmp/ip.json"
for dev in bpc0 bpbr0 bpv0 bpv1 bpmv0; do
	rig_exec client ethtool "$dev" 2>/dev/null | sed -n "s/^\tAuto-negotiation: /$dev autoneg /p; s/^\tPort: /$dev port /p"
done >"$tap_tmp/ethtool.txt"
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

# name kind parent master, one interface a line, from each side; ip -j names a parent in
# another namespace by index only (link_netnsid), which info leaves null too
jq -r '.env.inventory.nics[] | [.name, .kind // "-", .parent // "-", .master // "-"] | @tsv' \
	"$tap_tmp/links.json" | sort >"$tap_tmp/links.info"
jq -r '.[] | select(.ifname != "lo") | [.ifname, .linkinfo.info_kind // "-",
	(if .link_netnsid == null then .link // "-" else "-" end), .master // "-"] | @tsv' \
	"$tap_tmp/ip.json" | sort >"$tap_tmp/links.ip"
d=$(diff "$tap_tmp/links.info" "$tap_tmp/links.ip")
grep -q $'^bpmv0\tmacvlan\tbpc0\t-$' "$tap_tmp/links.info" &&
	grep -q $'^bpv0\tveth\tbpv1\tbpbr0$' "$tap_tmp/links.info" &&
	[ "$(jq -r '.env.inventory.nics[] | select(.name == "bpbr0") | .ports | join(",")' \
		"$tap_tmp/links.json")" = bpv0 ] && [ -z "$d" ]
ok $? "${checks[4]} ($(wc -l <"$tap_tmp/links.info") interfaces${d:+; differ: $(tr '\n\t' '; ' <<<"$d")})"

# autoneg and port as ethtool prints them, info's in the same words
jq -r '.env.inventory.nics[] | select(.autoneg != null) | "\(.name) autoneg \(.autoneg)",
	"\(.name) port \({tp: "Twisted Pair", other: "Other", mii: "MII", fibre: "FIBRE",
		da: "Direct Attach Copper", none: "None", aui: "AUI", bnc: "BNC"}[.port] // "?")"' \
	"$tap_tmp/links.json" | sort >"$tap_tmp/neg.info"
sort "$tap_tmp/ethtool.txt" >"$tap_tmp/neg.ethtool"
d=$(diff "$tap_tmp/neg.info" "$tap_tmp/neg.ethtool")
[ -z "$d" ] && grep -q '^bpc0 autoneg off$' "$tap_tmp/neg.info"
ok $? "${checks[5]} ($(wc -l <"$tap_tmp/neg.info") lines${d:+; differ: $(tr '\n' ';' <<<"$d")})"

n=$(jq -s '[.[] | select(.path.device == "bpc0" and .path.through == ["bpc0"]
	and .path.nic.name == "bpc0" and .path.nic.kind == "veth" and .path.vlan_id == null
	and .path.peer != null and (.path.nic.features["tx-tcp-segmentation"] | startswith("off"))
	and (.path.summary | startswith("via bpc0 (veth")))] | length' "$tap_tmp/paths.json")
[ "$n" = 4 ]
ok $? "${checks[6]} ($n of 4: $(jq -r .t "$tap_tmp/paths.json" | paste -sd' ')$([ -s "$tap_tmp/net.err" ] && echo "; stderr: $(head -c 300 "$tap_tmp/net.err")"))"
w=$(awk '{ print length }' "$tap_tmp/tcp.txt" | sort -n | tail -1)
grep -qx 'path: via bpc0 (veth, 10000 Mb/s)' "$tap_tmp/tcp.txt" && [ "${w:-999}" -le 80 ] &&
	! jq -e 'select(.w | index("link-speed"))' "$tap_tmp/paths.json" >/dev/null
ok $? "${checks[7]} ($(grep '^path' "$tap_tmp/tcp.txt"); widest line $w)"
jq -e '.device == "bpmv0" and .through == ["bpmv0", "bpc0"] and .nic.name == "bpc0"
	and (.summary | startswith("via bpmv0 on bpc0"))' "$tap_tmp/mv.json" >/dev/null
ok $? "${checks[8]} ($(jq -r .summary "$tap_tmp/mv.json"))"
tap_done
