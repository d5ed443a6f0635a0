#!/usr/bin/env bash
# `run --peer` (docs/run.md, "boardperf run") against a `boardperf serve --http` in the server
# namespace of a rig (tests/rig/rig.sh), the suite run from the client namespace (~60 s):
# every network step's JSON names the peer; the tcp step's bytes against an nftables counter
# on the server namespace's input (ground truth: what reached the peer while that step ran,
# read when the suite announces the step before it and the one after); the http step skipped in one
# line when the peer serves no HTTP; an unreachable peer (its link down) fails fast in one
# line naming it with the local steps kept. Needs root, nft and jq.
# Usage: test_run_peer.sh BOARDPERF
set -u
bp=$1
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/../rig/rig.sh"

checks=("rig up, serve listening" "run --peer exit" "steps name the peer" "tcp bytes vs nft"
	"saved, every level" "http skipped" "unreachable: fast" "unreachable: one line" "unreachable: local kept")
if ! rig_require jq nft; then
	rig_tap_skip "${checks[@]}"
	tap_done
	exit
fi
rig_up || { rig_tap_skip "${checks[@]}"; tap_done; exit; }
rig_bg server "$bp" serve -p 5201 --http 8080 -q  # port-ok: in the test's own namespaces
rig_wait_port server 5201 5 && rig_wait_port server 8080 5  # port-ok: in the test's own namespaces
ok $? "rig up, serve listening on $RIG_SERVER_IP:5201 and :8080"
# the ground truth: TCP bytes into the peer's serve port, as the server's kernel counts them
ip netns exec "$RIG_SERVER_NS" nft -f - <<'NFT'
table inet bpcount { counter tcpin { }; chain in { type filter hook input priority 0; tcp dport 5201 counter name tcpin; }; }
NFT
nft_bytes() { ip netns exec "$RIG_SERVER_NS" nft list counter inet bpcount tcpin | awk '/bytes/ { for (i = 1; i < NF; i++) if ($i == "bytes") print $(i + 1) }'; }

# The suite says "running STEP" on stderr as each step begins: the counter is read when the
# disk step before tcp begins (no traffic to the peer until the tcp step: the read cannot be
# late, as one when tcp begins would be by the bytes it sent meanwhile) and when the udp
# step after it begins (udp is not counted; its control connection's few bytes are).
: >"$tap_tmp/c0"; : >"$tap_tmp/c1"
# port-ok: in the test's own namespaces
rig_exec client "$bp" run --peer "$RIG_SERVER_IP" --http-port 8080 --dir "$tap_tmp" -J \
	>"$tap_tmp/run.json" 2> >(while IFS= read -r line; do
		case $line in
		*"running disk") [ -s "$tap_tmp/c0" ] || nft_bytes >"$tap_tmp/c0" ;;
		*"running udp") [ -s "$tap_tmp/c1" ] || nft_bytes >"$tap_tmp/c1" ;;
		esac
		printf '%s\n' "$line" >>"$tap_tmp/run.err"
	done)
rc=$?
sleep 0.5  # the reader of stderr finishes its last line
ok $rc "run --peer $RIG_SERVER_IP: exit $rc"
if [ "$rc" -ne 0 ]; then  # which step, and why (the stderr's tail has only the last lines)
	jq -r '.warnings[]? | select(.code == "child-failed") | .message' "$tap_tmp/run.json" |
		sed 's/^/#   child-failed: /'
	sed 's/^/#   /' "$tap_tmp/run.err" | tail -5
fi
out=$(cat "$tap_tmp/run.json")
jq -e --arg ip "$RIG_SERVER_IP" '.params.peer == $ip and
	([.results[] | select(.test | test("^(tcp|udp|rr|crr|latency)$")) | .params.client == $ip] | all) and
	([.results[] | select(.test == "http") | .params.url | startswith("http://" + $ip + ":8080/")] | all) and
	([.results[] | .test] == ["cpu","mem","disk","tcp","udp","rr","crr","http","tcp","latency","together"]) and
	([.results[] | select(.test == "together") | .params.tests[] | select(startswith("tcp")) | contains($ip)] | all) and
	([.results[] | .warnings[]?.code] | index("loopback") == null)' <<<"$out" >/dev/null
ok $? "every network step names the peer $RIG_SERVER_IP (tcp both ways, udp, rr, crr, http, latency, together); none says loopback"
c0=$(cat "$tap_tmp/c0"); c1=$(cat "$tap_tmp/c1")
got=$(jq '[.results[] | select(.test == "tcp")][0] | .metrics[] | select(.name == "receiver.bytes") | .value' <<<"$out")
# nft counts IP packets (headers included, GRO'd) and the bytes after the receiver's span:
# at least the receiver's payload, at most 6 % above it (52 header bytes per 1448 at most:
# 3.6 %, plus the control connection and what arrived after the receiver's span)
awk -v n="$((c1 - c0))" -v g="$got" 'BEGIN { exit !(g > 0 && n >= g && n <= g * 1.06) }'
ok $? "tcp step: receiver.bytes $got vs the peer's nft input counter $((c1 - c0))"

# Saved (tap.sh's XDG_DATA_HOME: this test's own database), suites of suites included: the
# latency and together steps are suites themselves, their own runs rows under them.
db=$XDG_DATA_HOME/boardperf/results.db
q() { sqlite3 "$db" "$1"; }
sid=$(q "SELECT MAX(id) FROM results WHERE parent IS NULL AND test = 'run'")
want_grand=$(jq '[.results[] | (.results // []) | length] | add' <<<"$out")
got_grand=$(q "SELECT COUNT(*) FROM results g JOIN results c ON g.parent = c.id WHERE c.parent = ${sid:-0}")
! grep -q "not saved" "$tap_tmp/run.err" && [ -n "$sid" ] &&
	[ "$(q "SELECT COUNT(*) FROM results WHERE parent = $sid")" = 11 ] &&
	[ "$want_grand" -gt 0 ] && [ "$got_grand" = "$want_grand" ]
ok $? "run --peer saved as #${sid:-none}: its 11 steps and the $got_grand runs of its latency and together steps ($want_grand in the JSON)"
grep "not saved" "$tap_tmp/run.err" | sed 's/^/#   /'

# --- the peer serves no HTTP: the step is skipped, in one warning line
rig_exec client env COLUMNS=1000 "$bp" run --peer "$RIG_SERVER_IP" --dir "$tap_tmp" \
	>"$tap_tmp/run.txt" 2>/dev/null
grep -q "skipped.*http: the peer serves no HTTP" "$tap_tmp/run.txt" &&
	grep -q '^summary' "$tap_tmp/run.txt" && ! grep -q '^http ' "$tap_tmp/run.txt"
ok $? "no --http-port: http skipped in one line, the summary at the end"

# --- an unreachable peer: a namespace whose only link is down
ns=bpl-$BP_RUN-$BASHPID  # the run's prefix and this shell (tap.sh)
ip netns add "$ns" && ip -n "$ns" link set lo up &&
	ip -n "$ns" link add name bpl0 type veth peer name bpl1 &&
	ip -n "$ns" addr add 198.18.254.1/30 dev bpl0  # the link stays down: no route to .2
t0=$(date +%s%N)
out=$(ip netns exec "$ns" "$bp" run --peer 198.18.254.2 --dir "$tap_tmp" -J 2>"$tap_tmp/err"); rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
ip netns del "$ns"
t_local=$(jq '[.results[] | .params.time // 0] | add' <<<"$out")
[ "$rc" -eq 1 ]; ok $? "unreachable peer: exit $rc, $ms ms in all (the local steps' own time included)"
[ "$(grep -vc 'run: running ' "$tap_tmp/err")" -eq 1 ] && grep -q "error: peer 198.18.254.2:5201: .*unreachable" "$tap_tmp/err"
ok $? "unreachable peer: one line naming it: $(grep error "$tap_tmp/err")"
jq -e '[.results[].test] == ["cpu","mem","disk"] and .error.code == "unreachable" and
	([.results[] | .error == null] | all)' <<<"$out" >/dev/null
ok $? "unreachable peer: cpu, mem and disk measured and kept ($t_local s of their own)"
rig_down
tap_done
