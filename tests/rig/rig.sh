# tests/rig/rig.sh — test hosts in network namespaces (docs/ARCHITECTURE.md, "Tests, benches and CI"). Sourced by bash tests.
#
#   . tests/rig/rig.sh
#   rig_require iperf3 jq || { rig_tap_skip "tcp on a shaped link"; tap_done; exit; }
#   rig_up --rate 100mbit                # client ns <-veth-> server ns, both egresses shaped
#   rig_bg server iperf3 -s -1           # background, PID recorded, killed by rig_down
#   rig_wait_port server 5201
#   rig_exec client iperf3 -c "$RIG_SERVER_IP" -t 3 -J
#   rig_qdisc_drops client               # tbf drop counter: ground truth for loss
#   rig_down                             # also runs by itself on EXIT/INT/TERM
#
# Topology and names. Each rig_up makes a fresh pair of namespaces bpc-<run>-<shell pid>-<n>
# (client) and bps-<run>-<shell pid>-<n> (server): <run> is $BP_RUN (the run's prefix that
# tests/integration/tap.sh exports; a random one per shell when unset), so that two runs on one
# machine never share a name, and $BASHPID (not $$) so that subshells and parallel tests never
# pick the same name. The veth pair is created directly inside the namespaces, so its ends can
# have fixed names (bpc0 in the client, bps0 in the server) and nothing ever appears in the
# host's namespace; deleting a namespace destroys its veth end and with it the peer.
#
#   client  bpc0 198.18.X.1/30  <---- veth ---->  bps0 198.18.X.2/30  server
#
# Addresses come from 198.18.0.0/15 (RFC 2544 benchmarking range) only. X (0..255) starts from
# the shell pid plus a counter and moves on while any namespace on the machine (or the host)
# already holds 198.18.X.* or 198.19.X.*; the choice and the set-up run under a machine-wide
# flock so that two tests starting together cannot both take the same X. Rigs are isolated from
# each other and from the host anyway (no routes between them); unique X just keeps captures,
# logs and a later DUT's routing unambiguous. IPv6 is disabled on the veths (no link-local
# traffic on them); loopback keeps ::1.
#
# A device under test in the middle (issue 7): rig_up --dut adds a third namespace bpd-<pid>-<n>
#   and uses two veth pairs, both made by _rig_link:
#
#     client bpc0 198.18.X.1/30 <-> bpd-c 198.18.X.2/30 [DUT, ip_forward=1] bpd-s 198.19.X.1/30 <-> bps0 198.19.X.2/30 server
#
#   - the DUT gets `sysctl -w net.ipv4.ip_forward=1`; the client gets
#     `ip route add 198.19.X.0/30 via 198.18.X.2`, the server `ip route add 198.18.X.0/30 via 198.19.X.1`
#     (that is why X is chosen free in both 198.18 and 198.19 already);
#   - it exports RIG_DUT_NS, RIG_DUT_CLIENT_IF=bpd-c, RIG_DUT_SERVER_IF=bpd-s, RIG_DUT_CLIENT_IP,
#     RIG_DUT_SERVER_IP, and RIG_SERVER_IP becomes 198.19.X.2;
#   - the role argument of rig_exec/rig_bg/rig_wait_port gains "dut", and rig_qdisc_* gain
#     "dut-client" (egress of bpd-c, toward the client) and "dut-server" (egress of bpd-s, toward
#     the server);
#   - --rate shapes ONLY the DUT's two egresses (bpd-c and bpd-s), one bottleneck per direction,
#     inside the DUT. The client's bpc0 and the server's bps0 stay unshaped (noqueue; only the
#     offload settings apply): a tbf on the sending host's own veth would make its socket see the
#     shaper's queue overflow as ENOBUFS (UDP) or back-pressure instead of loss on the path. With the
#     DUT as the bottleneck, a 150 Mbit/s UDP flood into a 100mbit rig is dropped by the DUT's tbf
#     (rig_qdisc_drops dut-server) while the client's qdisc and Udp SndbufErrors stay at 0;
#   - rig_nft [RULESET] loads nftables rules into the DUT (`nft -f -` in the DUT namespace; RULESET
#     or stdin), e.g. conntrack: `ct state established,related accept`, `ct state new limit rate
#     N/second accept`. nft 1.0's one-line syntax needs `;` before every `}`: `table inet t { chain
#     f { type filter hook forward priority 0; ...; }; }` (the names fw/fwd are keywords). Tests
#     that use it call `rig_require nft`, which then also probes nf_tables + conntrack in a netns;
#   - rig_down deletes all three namespaces (the list is kept per rig).
#
# Shaping (--rate): tbf on the egress of BOTH veth ends (each direction gets the same bottleneck;
# with --dut the two ends are the DUT's, see above),
#   tc qdisc add dev IF root tbf rate RATE burst BURST latency LATENCY
# tbf counts a frame's bytes without FCS/preamble (1514 for a full TCP segment), so TCP goodput
# through it is at most 1448/1514 = 95.6 % of RATE (MSS 1448 with timestamps).
# BURST default = max(RATE/HZ, 8 full frames): tbf refills tokens when its watchdog fires and the
# classic rule is that the bucket must hold at least one timer tick's worth of bytes (RATE/HZ,
# with the kernel's CONFIG_HZ, 100 if unknown), or the link cannot reach RATE when wake-ups come
# late; it must also be above the MTU or a full frame can never leave. With HZ=250 that is 50 KB
# at 100mbit and 500 KB at 1gbit. Measurements behind this choice: tests/rig/README.md.
# LATENCY default 50ms: the queue tbf may hold (limit = RATE*LATENCY + BURST); long enough that a
# single TCP stream's TSQ backlog does not overflow it.
# Offloads: GSO/TSO/GRO are switched off on both veth ends (all four with --dut) (ethtool -K, when ethtool exists) so
# that tbf's drop counter counts wire frames: with GSO on, "Sent ... pkt" still counts segments
# but one "dropped" can be a 64 KB super-packet of ~45 frames, and tbf has to split packets
# larger than BURST itself. Goodput is the same either way (tests/rig/README.md). --offload on
# keeps the kernel defaults.
#
# Functions (all run in the calling shell — never call rig_up or rig_bg inside $(...) or a
# pipeline, or their bookkeeping is lost in a subshell):
#   rig_require [CMD...]          0 if rigs can be built here (root, netns, veth, tbf, CMDs), else 1
#                                 with RIG_SKIP_REASON set ("needs root", "needs iperf3", ...); with
#                                 nft among CMDs also checks nftables + conntrack work in a netns
#   rig_tap_skip DESC...          one "ok N - DESC # SKIP $RIG_SKIP_REASON" per DESC (uses tap.sh)
#   rig_up [--dut] [--rate R] [--burst B] [--latency L] [--offload on|off]
#                                 builds a rig, makes it current, exports RIG_ID, RIG_CLIENT_NS,
#                                 RIG_SERVER_NS, RIG_CLIENT_IP, RIG_SERVER_IP, RIG_CLIENT_IF,
#                                 RIG_SERVER_IF, RIG_NET (X), RIG_RATE/RIG_BURST/RIG_LATENCY; with
#                                 --dut also RIG_DUT_NS, RIG_DUT_CLIENT_IF, RIG_DUT_SERVER_IF,
#                                 RIG_DUT_CLIENT_IP, RIG_DUT_SERVER_IP (unset for a rig without DUT)
#   rig_use ID                    makes rig ID (from an earlier rig_up) current again
#   rig_exec client|server|dut CMD..  runs CMD in that namespace (foreground)
#   rig_bg client|server|dut CMD...   starts CMD in the background there; PID in RIG_BG_PID,
#                                 killed by rig_down
#   rig_wait_port client|server|dut PORT [SECONDS]   waits until a TCP listener is up (default 3 s)
#   rig_nft [RULESET]             nft -f - in the DUT (RULESET, or stdin); needs --dut and nft
#   rig_mirror UDP_PORT           a fourth namespace (role mirror, RIG_MIRROR_NS) that is handed a
#                                 copy of every datagram to UDP_PORT the server's veth receives
#                                 (see "A mirror" below); needs nft
#   rig_qdisc_drops ROLE          root qdisc's drop counter on ROLE's veth (tbf when shaped); ROLE is
#                                 client, server, dut-client (bpd-c) or dut-server (bpd-s)
#   rig_qdisc_sent_packets ROLE   root qdisc's sent packets; rig_qdisc_sent_bytes ROLE: bytes
#   rig_up also deletes stale rigs left by shells that died by SIGKILL (see _rig_sweep).
#   rig_down [ID|--all]           kills the rig's rig_bg PIDs (TERM, KILL after 2 s), deletes its
#                                 namespaces; idempotent. Installed on EXIT (chained with the
#                                 caller's EXIT trap) and on INT/TERM by the first rig_up.

_RIG_SEQ=${_RIG_SEQ:-0}
# The run's prefix in every namespace name (see the header); tap.sh sets and checks it.
if [ -z "${BP_RUN:-}" ]; then
	BP_RUN=r$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')
	export BP_RUN
fi
declare -gA _rig_ns_client _rig_ns_server _rig_ns_dut _rig_ns_mirror _rig_ip_client _rig_ip_server _rig_net _rig_pids _rig_nslist _rig_shaping
_rig_trap_set=${_rig_trap_set:-0}
RIG_LOCK=${RIG_LOCK:-/run/lock/boardperf-rig.lock}

_rig_err() { echo "rig: $*" >&2; }

# ---- capability check --------------------------------------------------------------------
rig_require() {
	local c probe=bpt-$BP_RUN-$BASHPID-probe
	RIG_SKIP_REASON=
	if [ "$(id -u)" != 0 ]; then RIG_SKIP_REASON="needs root"; fi
	for c in ip tc flock "$@"; do
		[ -n "$RIG_SKIP_REASON" ] && break
		command -v "$c" >/dev/null 2>&1 || RIG_SKIP_REASON="needs $c"
	done
	if [ -z "$RIG_SKIP_REASON" ]; then
		if ! ip netns add "$probe" 2>/dev/null; then
			RIG_SKIP_REASON="needs network namespaces (ip netns add failed)"
		else
			if ! ip -n "$probe" link add name p0 type veth peer name p1 2>/dev/null; then
				RIG_SKIP_REASON="needs veth"
			elif ! ip netns exec "$probe" tc qdisc add dev p0 root tbf rate 1mbit burst 4kb latency 10ms 2>/dev/null; then
				RIG_SKIP_REASON="needs tbf (sch_tbf)"
			elif [[ " $* " == *" nft "* ]] &&
				! ip netns exec "$probe" nft -f - 2>/dev/null <<<'table inet bpt { chain f { type filter hook forward priority 0; ct state established,related accept; }; }'; then
				RIG_SKIP_REASON="needs nftables with conntrack (nf_tables, nf_conntrack)"
			fi
			ip netns del "$probe" 2>/dev/null
		fi
	fi
	if [ -n "$RIG_SKIP_REASON" ]; then
		echo "# rig: cannot build a test rig: $RIG_SKIP_REASON"
		return 1
	fi
	return 0
}

rig_tap_skip() {
	local d
	for d in "$@"; do
		tap_n=$((tap_n + 1))
		echo "ok $tap_n - $d # SKIP ${RIG_SKIP_REASON:-no rig}"
	done
}

# A mirror (issue 35): rig_mirror UDP_PORT adds bpm-<run>-<shell pid>-<n>, joined to the server
# by a veth pair bpm0 (server) <-> bpm1 (mirror). An nftables netdev rule on bps0's ingress
# (`udp dport PORT dup to "bpm0"`) clones each such frame as it arrives, after the rig's shaping
# (and the DUT's), so a second receiver sees the same datagrams at the same moments as the
# server: two receivers' figures on one traffic, not on two runs of it. bpm1 carries the
# server's own address and MAC (the copies are addressed to them). What the mirror's receiver
# answers goes nowhere (its ARP for the client reaches only bpm0, which holds no address), so
# the client hears the server only.

# ---- helpers -----------------------------------------------------------------------------
# _rig_rate_bits RATE: tc rate syntax -> bits per second (integer). Bare number = bit/s as in tc.
_rig_rate_bits() {
	awk -v r="$1" 'BEGIN {
		if (!match(tolower(r), /^[0-9]+(\.[0-9]+)?/)) exit 1
		n = substr(r, 1, RLENGTH); u = tolower(substr(r, RLENGTH + 1))
		m["" ] = 1; m["bit"] = 1; m["kbit"] = 1e3; m["mbit"] = 1e6; m["gbit"] = 1e9; m["tbit"] = 1e12
		m["kibit"] = 1024; m["mibit"] = 1048576; m["gibit"] = 1073741824
		m["bps"] = 8; m["kbps"] = 8e3; m["mbps"] = 8e6; m["gbps"] = 8e9
		m["kibps"] = 8192; m["mibps"] = 8388608; m["gibps"] = 8589934592
		if (!(u in m)) exit 1
		printf "%.0f\n", n * m[u] }'
}

# _rig_size_bytes SIZE: tc size syntax -> bytes (k/kb/m/mb/g/gb are 1024-based bytes, kbit/mbit/gbit
# 1024-based bits, a bare number is bytes — as tc's get_size()).
_rig_size_bytes() {
	awk -v r="$1" 'BEGIN {
		if (!match(r, /^[0-9]+(\.[0-9]+)?/)) exit 1
		n = substr(r, 1, RLENGTH); u = tolower(substr(r, RLENGTH + 1))
		m[""] = 1; m["b"] = 1; m["k"] = m["kb"] = 1024; m["m"] = m["mb"] = 1048576
		m["g"] = m["gb"] = 1073741824; m["kbit"] = 128; m["mbit"] = 131072; m["gbit"] = 134217728
		if (!(u in m)) exit 1
		printf "%.0f\n", n * m[u] }'
}

# Kernel tick rate; 100 (the largest burst) if the config cannot be read.
_rig_hz() {
	local hz
	hz=$({ cat "/boot/config-$(uname -r)" 2>/dev/null || zcat /proc/config.gz 2>/dev/null; } |
		sed -n 's/^CONFIG_HZ=\([0-9]*\)$/\1/p' | head -n 1)
	echo "${hz:-100}"
}

# Default burst in bytes: one tick of tokens, at least 8 full frames (see the header).
_rig_default_burst() {
	local bits=$1 hz
	hz=$(_rig_hz)
	awk -v b="$bits" -v hz="$hz" 'BEGIN { v = b / 8 / hz; if (v < 8 * 1514) v = 8 * 1514; printf "%.0f\n", v }'
}

# Rigs whose creating shell died without running rig_down (SIGKILL, e.g. a test runner's hard
# timeout) would live forever: rig_up deletes namespaces named by this library (bpc-/bps-/bpd-
# RUN-PID-N, bpt-RUN-PID-probe, and the older names without RUN) whose PID no longer exists and
# that hold no process. Runs under the lock.
_rig_sweep() {
	local ns pid
	for ns in $(ip netns list 2>/dev/null | awk '{ print $1 }'); do
		[[ $ns =~ ^bp[cdmst]-([a-z0-9]+-)?([0-9]+)-([0-9]+|probe)$ ]] || continue
		pid=${BASH_REMATCH[2]}
		[ -d "/proc/$pid" ] && continue
		[ -z "$(ip netns pids "$ns" 2>/dev/null)" ] || continue
		_rig_err "deleting stale namespace $ns (its shell, pid $pid, is gone)"
		ip netns del "$ns" 2>/dev/null
	done
}

# Every 198.18/198.19 third octet in use in any namespace or the host.
_rig_used_nets() {
	{
		ip -4 -o addr show 2>/dev/null
		local ns
		for ns in $(ip netns list 2>/dev/null | awk '{ print $1 }'); do
			ip -n "$ns" -4 -o addr show 2>/dev/null
		done
	} | sed -n 's/.* inet 198\.1[89]\.\([0-9]*\)\..*/\1/p' | sort -un
}

_rig_ns_of() { # _rig_ns_of client|server|dut|dut-client|dut-server -> namespace of the current rig
	[ -n "${RIG_ID:-}" ] || { _rig_err "no rig is up (rig_up, or rig_use ID)"; return 1; }
	case $1 in
	client) echo "$RIG_CLIENT_NS" ;;
	server) echo "$RIG_SERVER_NS" ;;
	dut | dut-client | dut-server)
		[ -n "${RIG_DUT_NS:-}" ] || { _rig_err "role '$1': rig $RIG_ID has no DUT (rig_up --dut)"; return 1; }
		echo "$RIG_DUT_NS" ;;
	mirror)
		[ -n "${RIG_MIRROR_NS:-}" ] || { _rig_err "role mirror: rig $RIG_ID has no mirror (rig_mirror)"; return 1; }
		echo "$RIG_MIRROR_NS" ;;
	*) _rig_err "unknown role '$1' (client|server|dut|mirror)"; return 1 ;;
	esac
}

_rig_if_of() { # veth end whose egress the role's qdisc counters read
	case $1 in
	client) echo "$RIG_CLIENT_IF" ;;
	server) echo "$RIG_SERVER_IF" ;;
	dut-client) [ -n "${RIG_DUT_CLIENT_IF:-}" ] && echo "$RIG_DUT_CLIENT_IF" ;;
	dut-server) [ -n "${RIG_DUT_SERVER_IF:-}" ] && echo "$RIG_DUT_SERVER_IF" ;;
	*) _rig_err "unknown role '$1' for a qdisc (client|server|dut-client|dut-server)"; return 1 ;;
	esac
}

# _rig_link NS_A IF_A IP_A NS_B IF_B IP_B: a veth pair between two namespaces, /30 addresses,
# IPv6 off, links up. rig_up calls it once; a DUT rig (issue 7) calls it twice.
_rig_link() {
	local na=$1 ia=$2 aa=$3 nb=$4 ib=$5 ab=$6 side
	ip link add name "$ia" netns "$na" type veth peer name "$ib" netns "$nb" || return 1
	for side in "$na $ia $aa" "$nb $ib $ab"; do
		# shellcheck disable=SC2086 # split on purpose
		set -- $side
		ip netns exec "$1" sysctl -qw "net.ipv6.conf.$2.disable_ipv6=1" 2>/dev/null
		ip -n "$1" addr add "$3/30" dev "$2" || return 1
		ip -n "$1" link set "$2" up || return 1
	done
}

# _rig_shape NS IF [noshape]: tbf and offload settings of the current rig_up call on one veth
# end; with "noshape" only the offload settings (the client's and server's ends of a DUT rig).
_rig_shape() {
	local ns=$1 ifc=$2 tbf=${3:-}
	if [ "$_rig_offload" = off ] && command -v ethtool >/dev/null 2>&1; then
		ip netns exec "$ns" ethtool -K "$ifc" gso off tso off gro off >/dev/null 2>&1 ||
			_rig_err "ethtool -K $ifc gso/tso/gro off failed (continuing)"
	fi
	[ -n "$RIG_RATE" ] && [ "$tbf" != noshape ] || return 0
	ip netns exec "$ns" tc qdisc add dev "$ifc" root tbf rate "$RIG_RATE" burst "$RIG_BURST" latency "$RIG_LATENCY"
}

# A machine-wide lock: held by rig_up while it picks X and builds, and by rig_down while it
# deletes, so that _rig_used_nets (which briefly enters every namespace with `ip -n`) never meets
# a half-built or half-deleted rig, and rig_down never sees another test's `ip -n` inside its own
# namespace.
_rig_lock() {
	mkdir -p "$(dirname "$RIG_LOCK")" 2>/dev/null
	exec {_rig_lockfd}>>"$RIG_LOCK" || return 1
	flock -w 20 "$_rig_lockfd" && return 0
	_rig_err "could not lock $RIG_LOCK within 20 s"
	exec {_rig_lockfd}>&-
	return 1
}
_rig_unlock() { exec {_rig_lockfd}>&-; }

# shellcheck disable=SC2120 # the set -- inside re-parses `trap -p` output
_rig_install_traps() {
	[ "$_rig_trap_set" = 1 ] && return 0
	local prev sig
	# `trap -p EXIT` prints: trap -- 'CMD' EXIT — re-parse it to get CMD back with its quoting.
	prev=$(trap -p EXIT)
	if [ -n "$prev" ]; then
		eval "set -- $prev"
		prev=$3
	fi
	trap -- "rig_down --all${prev:+; $prev}" EXIT
	# An untrapped TERM/INT would kill bash without running EXIT: turn them into an exit.
	for sig in INT TERM; do
		prev=$(trap -p "$sig")
		if [ -n "$prev" ]; then
			eval "set -- $prev"
			prev=$3
		fi
		trap -- "${prev:+$prev; }exit $((128 + $(kill -l "$sig")))" "$sig"
	done
	_rig_trap_set=1
}

# ---- rig_up ------------------------------------------------------------------------------
rig_up() {
	local rate='' burst='' latency=50ms offload=off dut=0 bits bytes n cns sns dns net used start i ns
	while [ $# -gt 0 ]; do
		case $1 in
		--rate) rate=$2; shift 2 ;;
		--burst) burst=$2; shift 2 ;;
		--latency) latency=$2; shift 2 ;;
		--offload) offload=$2; shift 2 ;;
		--dut) dut=1; shift ;;
		*) _rig_err "rig_up: unknown option '$1'"; return 2 ;;
		esac
	done
	case $offload in on | off) ;; *) _rig_err "rig_up: --offload on|off"; return 2 ;; esac
	if [ -n "$rate" ]; then
		bits=$(_rig_rate_bits "$rate") || { _rig_err "rig_up: bad rate '$rate'"; return 2; }
		[ -n "$burst" ] || burst=$(_rig_default_burst "$bits")
		bytes=$(_rig_size_bytes "$burst") || { _rig_err "rig_up: bad burst '$burst'"; return 2; }
		if [ "$bytes" -lt 1514 ]; then
			_rig_err "rig_up: burst $burst is below one full frame (1514 bytes): tbf would drop every full-size packet"
			return 2
		fi
	fi
	_rig_install_traps

	# Serialise with every other rig_up on the machine: X is chosen and taken atomically.
	_rig_lock || return 1
	_rig_sweep

	for ((i = 0; i < 100; i++)); do
		_RIG_SEQ=$((_RIG_SEQ + 1))
		n=$_RIG_SEQ
		cns=bpc-$BP_RUN-$BASHPID-$n
		sns=bps-$BP_RUN-$BASHPID-$n
		dns=
		[ "$dut" = 1 ] && dns=bpd-$BP_RUN-$BASHPID-$n
		[ -e "/run/netns/$cns" ] || [ -e "/run/netns/$sns" ] || { [ -n "$dns" ] && [ -e "/run/netns/$dns" ]; } || break
	done
	used=" $(_rig_used_nets | tr '\n' ' ') "
	start=$(((BASHPID * 7 + n) % 256))
	net=
	for ((i = 0; i < 256; i++)); do
		case $used in *" $(((start + i) % 256)) "*) continue ;; esac
		net=$(((start + i) % 256))
		break
	done
	if [ -z "$net" ]; then
		_rig_err "rig_up: all 256 rig subnets X (198.18.X.0/30 and 198.19.X.0/30) are in use"
		_rig_unlock
		return 1
	fi

	RIG_ID=$n
	_rig_ns_client[$n]=$cns
	_rig_ns_server[$n]=$sns
	_rig_ns_dut[$n]=$dns
	_rig_ns_mirror[$n]=
	_rig_ip_client[$n]=198.18.$net.1
	_rig_ip_server[$n]=198.18.$net.2
	[ -n "$dns" ] && _rig_ip_server[$n]=198.19.$net.2
	_rig_net[$n]=$net
	_rig_pids[$n]=
	_rig_nslist[$n]=
	_rig_shaping[$n]="$rate|$burst|$latency|$offload"
	RIG_RATE=$rate RIG_BURST=$burst RIG_LATENCY=$latency
	_rig_offload=$offload

	local ok=1
	for ns in "$cns" "$sns" $dns; do
		if ip netns add "$ns"; then
			_rig_nslist[$n]+="$ns "
			ip -n "$ns" link set lo up || ok=0
		else
			ok=0
		fi
	done
	if [ -z "$dns" ]; then
		[ "$ok" = 1 ] && _rig_link "$cns" bpc0 "${_rig_ip_client[$n]}" "$sns" bps0 "${_rig_ip_server[$n]}" || ok=0
		[ "$ok" = 1 ] && _rig_shape "$cns" bpc0 || ok=0
		[ "$ok" = 1 ] && _rig_shape "$sns" bps0 || ok=0
	else
		# client bpc0 198.18.X.1 <-> bpd-c 198.18.X.2 [DUT] bpd-s 198.19.X.1 <-> bps0 198.19.X.2 server;
		# the bottleneck is the DUT's two egresses only (see the header).
		[ "$ok" = 1 ] && _rig_link "$cns" bpc0 "${_rig_ip_client[$n]}" "$dns" bpd-c "198.18.$net.2" || ok=0
		[ "$ok" = 1 ] && _rig_link "$dns" bpd-s "198.19.$net.1" "$sns" bps0 "${_rig_ip_server[$n]}" || ok=0
		[ "$ok" = 1 ] && ip netns exec "$dns" sysctl -qw net.ipv4.ip_forward=1 || ok=0
		[ "$ok" = 1 ] && ip -n "$cns" route add "198.19.$net.0/30" via "198.18.$net.2" || ok=0
		[ "$ok" = 1 ] && ip -n "$sns" route add "198.18.$net.0/30" via "198.19.$net.1" || ok=0
		[ "$ok" = 1 ] && _rig_shape "$cns" bpc0 noshape || ok=0
		[ "$ok" = 1 ] && _rig_shape "$sns" bps0 noshape || ok=0
		[ "$ok" = 1 ] && _rig_shape "$dns" bpd-c || ok=0
		[ "$ok" = 1 ] && _rig_shape "$dns" bpd-s || ok=0
	fi
	_rig_unlock
	if [ "$ok" != 1 ]; then
		_rig_err "rig_up: set-up failed; tearing down"
		rig_down "$n"
		return 1
	fi
	rig_use "$n"
}

rig_use() {
	local n=$1
	[ -n "${_rig_ns_client[$n]:-}" ] || { _rig_err "rig_use: no rig '$n'"; return 1; }
	export RIG_ID=$n
	export RIG_CLIENT_NS=${_rig_ns_client[$n]} RIG_SERVER_NS=${_rig_ns_server[$n]}
	export RIG_CLIENT_IP=${_rig_ip_client[$n]} RIG_SERVER_IP=${_rig_ip_server[$n]}
	export RIG_CLIENT_IF=bpc0 RIG_SERVER_IF=bps0 RIG_NET=${_rig_net[$n]}
	if [ -n "${_rig_ns_dut[$n]:-}" ]; then
		export RIG_DUT_NS=${_rig_ns_dut[$n]} RIG_DUT_CLIENT_IF=bpd-c RIG_DUT_SERVER_IF=bpd-s
		export RIG_DUT_CLIENT_IP=198.18.${_rig_net[$n]}.2 RIG_DUT_SERVER_IP=198.19.${_rig_net[$n]}.1
	else
		unset RIG_DUT_NS RIG_DUT_CLIENT_IF RIG_DUT_SERVER_IF RIG_DUT_CLIENT_IP RIG_DUT_SERVER_IP
	fi
	if [ -n "${_rig_ns_mirror[$n]:-}" ]; then export RIG_MIRROR_NS=${_rig_ns_mirror[$n]}
	else unset RIG_MIRROR_NS; fi
	IFS='|' read -r RIG_RATE RIG_BURST RIG_LATENCY _rig_offload <<<"${_rig_shaping[$n]}"
	export RIG_RATE RIG_BURST RIG_LATENCY
}

# ---- running things in the rig -----------------------------------------------------------
rig_exec() {
	local ns
	ns=$(_rig_ns_of "$1") || return 2
	shift
	ip netns exec "$ns" "$@"
}

# `ip netns exec` execs CMD after setns (no fork), so $! is CMD itself.
rig_bg() {
	local ns
	ns=$(_rig_ns_of "$1") || return 2
	shift
	ip netns exec "$ns" "$@" &
	RIG_BG_PID=$!
	_rig_pids[$RIG_ID]+="$RIG_BG_PID:$BASHPID:$ns "
}

rig_wait_port() {
	local role=$1 port=$2 secs=${3:-3} i
	for ((i = 0; i < secs * 20; i++)); do
		rig_exec "$role" ss -Hltn "sport = :$port" 2>/dev/null | grep -q . && return 0
		sleep 0.05
	done
	_rig_err "rig_wait_port: nothing listening on $role:$port after ${secs}s"
	return 1
}

# rig_nft [RULESET]: loads nftables rules (RULESET, or stdin when absent) into the current rig's
# DUT with `nft -f -`. Callers check `rig_require nft` first.
rig_nft() {
	local ns
	ns=$(_rig_ns_of dut) || return 2
	command -v nft >/dev/null 2>&1 || { _rig_err "rig_nft: nft not found (apt-get install nftables)"; return 2; }
	if [ $# -gt 0 ]; then
		printf '%s\n' "$1" | ip netns exec "$ns" nft -f -
	else
		ip netns exec "$ns" nft -f -
	fi
}

# rig_mirror UDP_PORT: the mirror of the current rig (header, "A mirror").
rig_mirror() {
	local port=$1 n=${RIG_ID:-} mns sns mac addr ok=1
	[ -n "$n" ] || { _rig_err "no rig is up (rig_up, or rig_use ID)"; return 1; }
	if ! [[ $port =~ ^[0-9]{1,5}$ ]] || [ "$port" -lt 1 ] || [ "$port" -gt 65535 ]; then
		_rig_err "rig_mirror: port '$port' is not 1-65535"
		return 2
	fi
	[ -z "${_rig_ns_mirror[$n]}" ] || { _rig_err "rig_mirror: rig $n has a mirror already"; return 1; }
	command -v nft >/dev/null 2>&1 || { _rig_err "rig_mirror: nft not found (apt-get install nftables)"; return 2; }
	sns=$RIG_SERVER_NS mns=bpm-$BP_RUN-$BASHPID-$n
	_rig_lock || return 1
	if ip netns add "$mns"; then
		_rig_nslist[$n]+="$mns "
		_rig_ns_mirror[$n]=$mns
	else
		ok=0
	fi
	mac=$(ip -n "$sns" -br link show dev bps0 | awk '{ print $3 }')
	addr=$(ip -n "$sns" -4 -o addr show dev bps0 | awk '{ print $4 }')
	[ "$ok" = 1 ] && ip link add name bpm0 netns "$sns" type veth peer name bpm1 netns "$mns" || ok=0
	if [ "$ok" = 1 ]; then
		ip netns exec "$sns" sysctl -qw net.ipv6.conf.bpm0.disable_ipv6=1 2>/dev/null
		ip netns exec "$mns" sysctl -qw net.ipv6.conf.bpm1.disable_ipv6=1 2>/dev/null
		ip -n "$mns" link set bpm1 address "$mac" && ip -n "$mns" addr add "$addr" dev bpm1 &&
			ip -n "$mns" link set lo up && ip -n "$mns" link set bpm1 up &&
			ip -n "$sns" link set bpm0 up || ok=0
	fi
	[ "$ok" = 1 ] && _rig_shape "$mns" bpm1 noshape || ok=0
	[ "$ok" = 1 ] && printf 'table netdev rig_mirror { chain in { type filter hook ingress device "bps0" priority 0; udp dport %s dup to "bpm0"; }; }\n' "$port" |
		ip netns exec "$sns" nft -f - || ok=0
	_rig_unlock
	[ "$ok" = 1 ] || { _rig_err "rig_mirror: set-up failed (nftables' netdev dup needs CONFIG_NFT_DUP_NETDEV)"; return 1; }
	export RIG_MIRROR_NS=$mns
}

# _rig_qdisc_field ROLE AWK-FIELD: from the root qdisc's " Sent B bytes P pkt (dropped D, ..." line.
_rig_qdisc_field() {
	local ns ifc
	ns=$(_rig_ns_of "$1") || return 2
	ifc=$(_rig_if_of "$1") || return 2
	ip netns exec "$ns" tc -s qdisc show dev "$ifc" root |
		awk -v f="$2" '/^ Sent / { gsub(/[(,]/, " "); print $f; exit }'
}
rig_qdisc_drops() { _rig_qdisc_field "$1" 7; }
rig_qdisc_sent_packets() { _rig_qdisc_field "$1" 4; }
rig_qdisc_sent_bytes() { _rig_qdisc_field "$1" 2; }

# ---- teardown ----------------------------------------------------------------------------
# _rig_ours PID OWNER NS: still alive, still our child, still in our namespace — never signal a
# PID that was reaped and reused by someone else.
_rig_ours() {
	local pid=$1 owner=$2 ns=$3 stat ppid
	stat=$(cat "/proc/$pid/stat" 2>/dev/null) || return 1
	stat=${stat##*) }
	# shellcheck disable=SC2086 # split on purpose: state ppid ...
	set -- $stat
	ppid=$2
	[ "$1" != Z ] && [ "$ppid" = "$owner" ] || return 1
	[ "$(stat -L -c %i "/proc/$pid/ns/net" 2>/dev/null)" = "$(stat -L -c %i "/run/netns/$ns" 2>/dev/null)" ]
}

_rig_kill() { # PID:OWNER:NS...
	local e pid owner ns live i
	live=
	for e in "$@"; do
		IFS=: read -r pid owner ns <<<"$e"
		_rig_ours "$pid" "$owner" "$ns" && kill -TERM "$pid" 2>/dev/null && live+="$e "
	done
	for ((i = 0; i < 40 && ${#live} > 0; i++)); do
		local still=
		for e in $live; do
			IFS=: read -r pid owner ns <<<"$e"
			_rig_ours "$pid" "$owner" "$ns" && still+="$e "
		done
		live=$still
		[ -n "$live" ] && sleep 0.05
	done
	for e in $live; do
		IFS=: read -r pid owner ns <<<"$e"
		_rig_err "pid $pid ignored SIGTERM; sending SIGKILL"
		_rig_ours "$pid" "$owner" "$ns" && kill -KILL "$pid" 2>/dev/null
	done
	for e in "$@"; do
		IFS=: read -r pid owner ns <<<"$e"
		# A killed process waits with 128+signal: no failure of rig_down (a caller under
		# set -e, as bench/udp.sh, would exit 1 from its EXIT trap after printing its figures).
		[ "$owner" = "$BASHPID" ] || continue
		wait "$pid" 2>/dev/null || true
	done
	return 0
}

rig_down() {
	local ids n ns left locked
	case ${1:-} in
	--all) ids=${!_rig_nslist[*]} ;;
	'') ids=${RIG_ID:-} ;;
	*) ids=$1 ;;
	esac
	for n in $ids; do
		[ -n "${_rig_nslist[$n]+set}" ] || continue
		# shellcheck disable=SC2086
		[ -n "${_rig_pids[$n]}" ] && _rig_kill ${_rig_pids[$n]}
		_rig_lock # deletes even without the lock: leaving namespaces behind is worse
		locked=$?
		for ns in ${_rig_nslist[$n]}; do
			left=$(ip netns pids "$ns" 2>/dev/null | tr '\n' ' ')
			[ -n "$left" ] && _rig_err "namespace $ns still has processes not started by rig_bg: $left(the namespace lives on until they exit)"
			ip netns del "$ns" 2>/dev/null || { [ -e "/run/netns/$ns" ] && _rig_err "could not delete namespace $ns"; }
		done
		[ "$locked" = 0 ] && _rig_unlock
		unset "_rig_nslist[$n]" "_rig_pids[$n]" "_rig_ns_client[$n]" "_rig_ns_server[$n]" "_rig_ns_dut[$n]" "_rig_ns_mirror[$n]" \
			"_rig_ip_client[$n]" "_rig_ip_server[$n]" "_rig_net[$n]" "_rig_shaping[$n]"
		if [ "$n" = "${RIG_ID:-}" ]; then
			unset RIG_ID RIG_CLIENT_NS RIG_SERVER_NS RIG_CLIENT_IP RIG_SERVER_IP RIG_CLIENT_IF \
				RIG_SERVER_IF RIG_NET RIG_BG_PID RIG_RATE RIG_BURST RIG_LATENCY \
				RIG_DUT_NS RIG_DUT_CLIENT_IF RIG_DUT_SERVER_IF RIG_DUT_CLIENT_IP RIG_DUT_SERVER_IP \
				RIG_MIRROR_NS
		fi
	done
	return 0
}

# A namespace of the test's own with only its loopback up, for loopback tests that need
# their own nftables counters or addresses: rig_lo_up PREFIX sets RIG_LO_NS (PREFIX-RUN-PID);
# rig_lo_serve LOG BOARDPERF ARGS... starts `boardperf serve ARGS` in it (RIG_LO_SRV, its
# PID), back once it listens; rig_lo_down stops that server by its PID and removes the
# namespace (safe to call twice: put it in the test's EXIT trap).
rig_lo_up() {
	RIG_LO_NS=$1-$BP_RUN-$BASHPID
	RIG_LO_SRV=
	ip netns add "$RIG_LO_NS" && ip -n "$RIG_LO_NS" link set lo up
}
rig_lo_serve() {
	local log=$1 bin=$2
	shift 2
	ip netns exec "$RIG_LO_NS" "$bin" serve "$@" 2>"$log" &
	RIG_LO_SRV=$!
	for _ in $(seq 50); do grep -qs listening "$log" && return 0; sleep 0.1; done
	return 1
}
rig_lo_down() {
	[ -n "${RIG_LO_SRV:-}" ] && kill "$RIG_LO_SRV" 2>/dev/null && wait "$RIG_LO_SRV" 2>/dev/null
	RIG_LO_SRV=
	[ -n "${RIG_LO_NS:-}" ] && ip netns del "$RIG_LO_NS" 2>/dev/null
	RIG_LO_NS=
	return 0
}
