#!/usr/bin/env bash
# boardperf cpu vs `openssl speed` on the same items, in one run: rounds alternate which tool
# goes first (2 shared, noisy cores), both divide by wall-clock time (-elapsed), and the last
# line is the median ratio boardperf ÷ openssl speed over all items.
# Usage: bench/cpu.sh [BOARDPERF] [ROUNDS] [SECONDS]
set -euo pipefail
here=$(dirname "$0")
. "$here/lib.sh"
bp=${1:-$here/../build/boardperf}
rounds=${2:-5}
secs=${3:-1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

items="rsa2048.sign rsa2048.verify ecdsa-p256.sign ecdsa-p256.verify ed25519.sign ed25519.verify
sha256.16 sha256.8192 aes-128-gcm.16 aes-128-gcm.16384 chacha20-poly1305.16384"

run_bp() {
	local j
	j=$("$bp" cpu --algo rsa2048,ecdsa-p256,ed25519,sha256,aes-128-gcm,chacha20-poly1305 \
		--sizes 16,8192,16384 -t "$secs" --json)
	for it in $items; do
		jq -r --arg n "$it" '.metrics[] | select(.name == $n) | .value' <<<"$j" >>"$tmp/bp.$it"
	done
}

# One `openssl speed -mr` line per item, in the tool's own units (op/s and B/s).
ossl() { openssl speed -elapsed -seconds "$secs" -mr "$@" 2>/dev/null; }
run_ossl() {
	local l
	l=$(ossl rsa2048 | grep '^+F2:'); cut -d: -f4 <<<"$l" >>"$tmp/os.rsa2048.sign"
	cut -d: -f5 <<<"$l" >>"$tmp/os.rsa2048.verify"
	l=$(ossl ecdsap256 | grep '^+F4:'); cut -d: -f4 <<<"$l" >>"$tmp/os.ecdsa-p256.sign"
	cut -d: -f5 <<<"$l" >>"$tmp/os.ecdsa-p256.verify"
	l=$(ossl ed25519 | grep '^+F6:'); cut -d: -f5 <<<"$l" >>"$tmp/os.ed25519.sign"
	cut -d: -f6 <<<"$l" >>"$tmp/os.ed25519.verify"
	ossl -bytes 16 sha256 | grep '^+F:' | cut -d: -f4 >>"$tmp/os.sha256.16"
	ossl -bytes 8192 sha256 | grep '^+F:' | cut -d: -f4 >>"$tmp/os.sha256.8192"
	ossl -bytes 16 -evp aes-128-gcm | grep '^+F:' | cut -d: -f4 >>"$tmp/os.aes-128-gcm.16"
	ossl -bytes 16384 -evp aes-128-gcm | grep '^+F:' | cut -d: -f4 >>"$tmp/os.aes-128-gcm.16384"
	ossl -bytes 16384 -evp chacha20-poly1305 | grep '^+F:' | cut -d: -f4 \
		>>"$tmp/os.chacha20-poly1305.16384"
}

for ((i = 1; i <= rounds; i++)); do
	if ((i % 2)); then run_bp; run_ossl; else run_ossl; run_bp; fi
	echo "round $i of $rounds done" >&2
done

printf '%-26s %16s %16s %7s\n' item boardperf "openssl speed" ratio
for it in $items; do
	b=$(median <"$tmp/bp.$it")
	o=$(median <"$tmp/os.$it")
	r=$(ratio "$b" "$o")
	echo "$r" >>"$tmp/ratios"
	printf '%-26s %16.0f %16.0f %7s\n' "$it" "$b" "$o" "$r"
done
echo "median ratio boardperf/openssl-speed: $(median <"$tmp/ratios")"
