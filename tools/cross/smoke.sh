#!/usr/bin/env bash
# One static ARM binary run for real under qemu-user (tools/cross/test.sh, CI): `info`,
# `cpu` and `tcp` over loopback against its own `serve`, each checked from its JSON. The
# unit suite (armhf) checks the logic; this checks that the binary of `make dist` for the
# architecture starts, measures and talks to itself (speeds under emulation mean nothing:
# only that figures are numbers above zero). TAP on stdout.
#   usage: tools/cross/smoke.sh ARCH RUNNER
#   RUNNER: an executable that runs the binary under qemu-user (tools/dist.sh writes
#   build-dist/ARCH.help: QEMU_CPU=<oldest core> qemu-ARCH-static boardperf "$@")
set -uo pipefail
arch=${1:?usage: smoke.sh ARCH RUNNER}
bp=${2:?usage: smoke.sh ARCH RUNNER}
cd "$(dirname "$0")/../.."
. tests/integration/tap.sh

expect_exit 0 "$arch: info --json" "$bp" info --json
jq -e --arg a "$arch" '.schema == "boardperf/1" and .test == "info"
	and .env.boardperf.abi == $a and .env.boardperf.static == true' <<<"$out" >/dev/null
ok $? "$arch: info names the architecture ($arch) and a static build"

expect_exit 0 "$arch: cpu" "$bp" cpu -t 0.05 --algo sha256,aes-128-gcm,ed25519 --sizes 1024 --json
jq -e '[.metrics[] | select((.value | type) == "number" and .value > 0)] | length >= 3' \
	<<<"$out" >/dev/null
ok $? "$arch: cpu figures are numbers above zero ($(jq -r '[.metrics[].name] | join(", ")' <<<"$out" 2>/dev/null))"

bp_ports 1; port=$BP_PORT  # tap.sh: reserved for this run, never another test's
"$bp" serve -p "$port" -B 127.0.0.1 --idle-timeout 10 >"$tap_tmp/serve.log" 2>&1 &
serve=$!
# qemu-user starts the server in about a second; the client retries nothing itself
for _ in $(seq 100); do grep -qs "listening\|serving" "$tap_tmp/serve.log" && break; sleep 0.1; done
expect_exit 0 "$arch: tcp -t 1 over loopback against its own serve" \
	"$bp" tcp -c 127.0.0.1 -p "$port" -t 1 --json
jq -e '[.metrics[] | {(.name): .value}] | add | .["receiver.bytes"] > 0 and .["sender.bytes"] > 0' \
	<<<"$out" >/dev/null
ok $? "$arch: tcp moved bytes, both ends counted them"
wait_log "$tap_tmp/serve.log" "tcp upload, 1 stream"
ok $? "$arch: serve logged the test ($(grep -m1 "tcp upload" "$tap_tmp/serve.log"))"
kill "$serve" 2>/dev/null; wait "$serve" 2>/dev/null
tap_done
