#!/bin/sh
# /init of the x86-64 VM's initramfs (tools/vm/run.sh builds it): a real Debian kernel with
# SCTP, which the build machines' kernel lacks. Loads the sctp module and what it needs, then
# runs every SCTP check in this one boot over the guest's loopback and prints each one's
# output on the console between markers the host reads (tools/vm/check.sh):
#   @@BEGIN NAME  ...JSON...  @@END NAME RC   (and, when RC is not 0, its stderr as @@ERR lines)
# then powers off (QEMU exits: -no-reboot).
/bin/busybox --install -s /bin
export PATH=/bin:/usr/bin HOME=/tmp
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
# stock iperf3 makes its stream buffers under /tmp ("unable to create a new stream" without)
mkdir -p /tmp && mount -t tmpfs tmp /tmp
echo "@@UPTIME init $(cut -d' ' -f1 /proc/uptime)"
# Modules in dependency order (run.sh wrote the list); there is no modprobe here.
while read -r m; do insmod "/lib/modules/$m" || echo "@@MODULE $m failed"; done </lib/modules/order
ip link set lo up
check() {
	name=$1; shift
	echo "@@BEGIN $name"
	"$@" </dev/null 2>/tmp/err
	rc=$?
	echo
	echo "@@END $name $rc"
	[ "$rc" = 0 ] || sed 's/^/@@ERR /' /tmp/err
	echo "@@UPTIME $name $(cut -d' ' -f1 /proc/uptime)"
}
waitfor() {  # a line $1 in log $2, for up to 6 s
	for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		grep -q "$1" "$2" 2>/dev/null && return 0; sleep 0.3
	done
	return 1
}
bp=15201 ip3=15202
h="-c 127.0.0.1"
boardperf serve -p $bp --idle-timeout 5 2>/tmp/serve.log &
serve=$!
waitfor listening /tmp/serve.log
# boardperf against its own serve: both ways, then -P 2 --bidir with every SCTP option
check up boardperf tcp --sctp $h -p $bp -t 2 --json
check down boardperf tcp --sctp -R $h -p $bp -t 2 --json
check bidir boardperf tcp --sctp --bidir -P 2 --nstreams 4 -l 64K -w 1M -M 1200 -N $h -p $bp -t 2 --json
check rr boardperf rr --sctp -P 2 --nstreams 2 $h -p $bp -t 1 --json
# crr closed loop (an association per transaction, as fast as it goes), open loop (INIT/COOKIE
# handshakes at a set rate), and --connect-only (the handshake and close alone)
check crr boardperf crr --sctp $h -p $bp -t 1 --json
check crr-rate boardperf crr --sctp --rate 50 $h -p $bp -t 1 --json
check crr-connect boardperf crr --sctp --connect-only $h -p $bp -t 1 --json
# a stock iperf3 --sctp client against boardperf serve, both ways
check iperf3-up iperf3 --sctp $h -p $bp -t 2 -J
check iperf3-down iperf3 --sctp -R $h -p $bp -t 2 -J
check iperf3-bidir iperf3 --sctp --bidir -P 2 $h -p $bp -t 2 -J
kill $serve
# boardperf's client against a stock iperf3 server, both ways
iperf3 -s -p $ip3 >/tmp/iperf3.log 2>&1 &
ip3pid=$!
waitfor "Server listening" /tmp/iperf3.log
check to-iperf3-up boardperf tcp --sctp --iperf3 $h -p $ip3 -t 2 --json
check to-iperf3-down boardperf tcp --sctp --iperf3 -R $h -p $ip3 -t 2 --json
kill $ip3pid
# bad input: one line each, exit status 2
check bad-nstreams boardperf tcp --sctp --nstreams 70000 $h
check bad-nosctp boardperf tcp --nstreams 4 $h
check bad-udp boardperf rr --sctp --udp $h
check bad-congestion boardperf tcp --sctp -C cubic $h
sed 's/^/@@SERVE /' /tmp/serve.log

# 802.1Q (issue 36), which this machine's kernel lacks: a veth pair between two namespaces
# with VLAN 100 on both ends; tcp untagged and tagged at once, seven rounds, then
# udp tagged, then tcp tagged once the sender's veth stops inserting tags (txvlan off).
# The addresses are this guest's own, in namespaces it made (it has no NIC: -nic none).
# iproute2's ip and ethtool are at /opt (tools/vm/run.sh): a bare "ip" is busybox's.
vlan() {
	mkdir -p /run &&
	/opt/ip netns add bpva && /opt/ip netns add bpvb &&
	/opt/ip link add bpv0 netns bpva type veth peer name bpv1 netns bpvb &&
	/opt/ip -n bpva link add link bpv0 name bpv0.100 type vlan id 100 &&
	/opt/ip -n bpvb link add link bpv1 name bpv1.100 type vlan id 100 &&
	/opt/ip -n bpva addr add 198.18.99.1/24 dev bpv0 && /opt/ip -n bpvb addr add 198.18.99.2/24 dev bpv1 &&
	/opt/ip -n bpva addr add 198.18.100.1/24 dev bpv0.100 &&
	/opt/ip -n bpvb addr add 198.18.100.2/24 dev bpv1.100 &&
	for ns in bpva bpvb; do
		for dev in lo $(/opt/ip -n $ns -o link show | sed -n 's/^[0-9]*: \(bpv[0-9.]*\)[@:].*/\1/p'); do
			/opt/ip -n $ns link set "$dev" up || return 1
		done
	done
}
check vlan-setup vlan
if [ "$rc" = 0 ]; then   # check's status
	/opt/ip netns exec bpvb boardperf serve -p $bp --idle-timeout 5 2>/tmp/vserve.log &
	vserve=$!
	waitfor listening /tmp/vserve.log
	# each round both at once, untagged and tagged, each paced to 100 Mbit/s: a fifth of
	# what one flow moves here alone, so the guest's one vCPU carries both whatever the host
	# does meanwhile. Unpaced, TCG moved untagged alone between 0.76 and 1.29 Gbit/s one
	# after the other, and two flows at once shared the vCPU unevenly beside the boards (CI
	# run 83: ratios 0.62-1.16)
	both() {
		/opt/ip netns exec bpva boardperf tcp -c 198.18.99.2 -p $bp -t 2 -b 100M --json \
			>/tmp/plain.json 2>/tmp/plain.err &
		plain=$!
		/opt/ip netns exec bpva boardperf tcp -c 198.18.100.2 -p $bp -t 2 -b 100M --json || return 1
		wait $plain
	}
	for r in 1 2 3 4 5 6 7; do
		check vlan-tagged-$r both
		check vlan-plain-$r cat /tmp/plain.json
	done
	check vlan-udp /opt/ip netns exec bpva boardperf udp -c 198.18.100.2 -p $bp -t 1 -b 20M --json
	check vlan-txvlan-off /opt/ip netns exec bpva /opt/ethtool -K bpv0 txvlan off
	check vlan-noinsert /opt/ip netns exec bpva boardperf tcp -c 198.18.100.2 -p $bp -t 1 --json
	kill $vserve
fi

# Wi-Fi (issue 36): two mac80211_hwsim radios, the second moved into a namespace; hostapd
# makes the first an access point (WPA2-PSK, 2.4 GHz channel 6, HT20), wpa_supplicant joins
# the second to it, and the setup waits for wpa_supplicant's COMPLETED (the 4-way handshake
# done: iw's "Connected" comes at association, before it, and an access point whose handshake
# timed out under a slow TCG guest deauthenticated the client in the middle of the checks,
# CI run 85). Then, in the client's namespace: info's Wi-Fi facts and `iw dev bpw1 link`
# at the same moment (info first, iw right after it, then info again: the host compares
# info's signal and rate with iw's between the two), and tcp over the link.
wifi() {
	mkdir -p /run /tmp/wifi &&
	/opt/ip netns add bpwc &&
	/opt/iw phy phy1 set netns name bpwc &&
	/opt/ip link set wlan0 name bpw0 && /opt/ip -n bpwc link set wlan1 name bpw1 &&
	/opt/ip addr add 198.18.77.1/24 dev bpw0 && /opt/ip link set bpw0 up &&
	/opt/ip -n bpwc addr add 198.18.77.2/24 dev bpw1 && /opt/ip -n bpwc link set bpw1 up &&
	/opt/ip -n bpwc link set lo up &&
	printf '%s\n' interface=bpw0 driver=nl80211 ssid=boardperf-vm hw_mode=g channel=6 \
		ieee80211n=1 wpa=2 wpa_key_mgmt=WPA-PSK rsn_pairwise=CCMP \
		wpa_passphrase=boardperf-vm-pass >/tmp/wifi/hostapd.conf &&
	printf 'ctrl_interface=/run/wpa_supplicant\nnetwork={\n ssid="boardperf-vm"\n psk="boardperf-vm-pass"\n key_mgmt=WPA-PSK\n}\n' \
		>/tmp/wifi/wpa.conf &&
	/opt/hostapd -B -t -f /tmp/wifi/hostapd.log -P /tmp/wifi/hostapd.pid /tmp/wifi/hostapd.conf &&
	/opt/ip netns exec bpwc /opt/wpa_supplicant -B -t -f /tmp/wifi/wpa.log -D nl80211 -i bpw1 \
		-c /tmp/wifi/wpa.conf -P /tmp/wifi/wpa.pid &&
	for _ in $(seq 1 60); do
		/opt/ip netns exec bpwc /opt/wpa_cli -p /run/wpa_supplicant -i bpw1 status 2>/dev/null |
			grep -q '^wpa_state=COMPLETED' && return 0
		sleep 0.5
	done
	cat /tmp/wifi/hostapd.log /tmp/wifi/wpa.log >&2
	return 1
}
check wifi-setup wifi
if [ "$rc" = 0 ]; then
	# the rate control (minstrel) tries rates while frames flow; idle, it keeps its choice
	sleep 2
	check wifi-info-1 /opt/ip netns exec bpwc boardperf info --json
	check wifi-iw /opt/ip netns exec bpwc /opt/iw dev bpw1 link
	check wifi-iwinfo /opt/ip netns exec bpwc /opt/iw dev bpw1 info
	check wifi-info-2 /opt/ip netns exec bpwc boardperf info --json
	boardperf serve -p $bp --idle-timeout 5 2>/tmp/wserve.log &
	wserve=$!
	waitfor listening /tmp/wserve.log
	check wifi-tcp /opt/ip netns exec bpwc boardperf tcp -c 198.18.77.1 -p $bp -t 2 --json
	kill $wserve
	# both daemons' logs, which the host prints where a Wi-Fi check failed
	check wifi-log cat /tmp/wifi/hostapd.log /tmp/wifi/wpa.log
fi
echo "@@DONE"
poweroff -f
