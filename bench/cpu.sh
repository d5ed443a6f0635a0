#!/usr/bin/env bash
# boardperf cpu vs `openssl speed` on the same items, in one run: rounds alternate which tool
# goes first (2 shared, noisy cores). Two ratios per item, each the median over the rounds:
# - wall: operations per second of wall-clock time (boardperf's figures; openssl's count
#   over its -seconds, what `openssl speed -elapsed` prints);
# - cpu: operations per second of CPU time the worker got (boardperf's figure ÷ its ITEM.cpu
#   share; openssl speed's own default, which divides by user time). A process that shares
#   its core runs fewer operations per wall second but about as many per CPU second, so on a
#   busy machine this is the ratio that compares the two tools' methods; on a quiet one both
#   agree.
# The last line is the median of each over all items.
# Usage: bench/cpu.sh [BOARDPERF] [ROUNDS] [SECONDS]
set -euo pipefail
here=$(dirname "$0")
. "$here/lib.sh"
bp=${1:-$here/../build/boardperf}
rounds=${2:-5}
secs=${3:-2}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || die "ROUNDS must be a positive integer, not '$rounds'"
[[ $secs =~ ^[1-9][0-9]*$ ]] || die "SECONDS must be a positive integer, not '$secs'"
[[ -x $bp ]] || die "no boardperf binary at $bp (ninja -C build)"
need jq
need openssl
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Every algorithm boardperf shares with openssl speed's default list, at the block sizes of
# the published tables people compare with (16 bytes: per-call cost; 8192: throughput).
sizes="16 8192"
sigs="rsa1024 rsa2048 ecdsa-p256 ed25519"
syms="sha1 sha256 aes-128-gcm chacha20-poly1305"
items=""
for a in $sigs; do items+=" $a.sign $a.verify"; done
for a in $syms; do for s in $sizes; do items+=" $a.$s"; done; done

run_bp() {
	local j
	j=$("$bp" cpu --algo "${sigs// /,},${syms// /,}" --sizes "${sizes// /,}" -t "$secs" --json)
	for it in $items; do
		jq -r --arg n "$it" '[.metrics[] | select(.name == $n or .name == $n + ".cpu")
			| .value] | "\(.[0]) \(.[0] / .[1] * 100)"' <<<"$j" >>"$tmp/bp.$it"
	done
}

# openssl speed -mr prints, per item, "+R*:count:...:seconds" on stderr with the seconds in
# user CPU time (no -elapsed), and "+F*" with the rate over those seconds. The wall-clock
# rate is the count over -seconds, which its alarm ends.
ossl() { openssl speed -seconds "$secs" -mr "$@" 2>&1; }
# sig_pair OUT_NAME: from "+R<a>:count:..." (sign) and "+R<b>:..." (verify) lines on stdin.
sig_pair() {
	awk -F: -v secs="$secs" -v out="$tmp/os.$1" '
		/^\+R[0-9]+:/ { n++; c[n] = $2; t[n] = $NF }
		END {
			printf "%s %s\n", c[1] / secs, (t[1] > 0 ? c[1] / t[1] : "nan") >> (out ".sign")
			printf "%s %s\n", c[2] / secs, (t[2] > 0 ? c[2] / t[2] : "nan") >> (out ".verify")
		}'
}
run_ossl() {
	local s a name
	ossl rsa1024 | sig_pair rsa1024
	ossl rsa2048 | sig_pair rsa2048
	ossl ecdsap256 | sig_pair ecdsa-p256
	ossl ed25519 | sig_pair ed25519
	for s in $sizes; do
		ossl -bytes "$s" sha1 sha256 >"$tmp/sha.out"
		ossl -bytes "$s" -evp aes-128-gcm >"$tmp/gcm.out"
		ossl -bytes "$s" -evp chacha20-poly1305 >"$tmp/chacha.out"
		for a in sha1:sha1:sha sha256:sha256:sha aes-128-gcm:AES-128-GCM:gcm \
			chacha20-poly1305:ChaCha20-Poly1305:chacha; do
			IFS=: read -r name oname file <<<"$a"
			awk -F: -v n="$oname" -v s="$s" -v secs="$secs" \
				'$1 == "+R" && $3 == n { print $2 * s / secs, ($4 > 0 ? $2 * s / $4 : "nan") }' \
				"$tmp/$file.out" >>"$tmp/os.$name.$s"
		done
	done
}

for ((i = 1; i <= rounds; i++)); do
	if ((i % 2)); then run_bp; run_ossl; else run_ossl; run_bp; fi
	echo "round $i of $rounds done" >&2
done

col() { awk -v c="$1" '{ print $c }'; }
# spread: half the range of one tool's wall-clock rounds, in percent of their mean: how far
# this machine moves a figure by itself, beside which a ratio's distance from 1 is read.
spread() { awk '{ v = $1 + 0; s += v; n++; if (n == 1 || v < lo) lo = v; if (n == 1 || v > hi) hi = v }
	END { printf "%.1f", n && s ? (hi - lo) / 2 / (s / n) * 100 : 0 }'; }
printf '%-26s %14s %14s %6s   %14s %14s %6s  %7s %7s\n' item "boardperf" "openssl speed" wall \
	"bp/cpu-s" "openssl/cpu-s" cpu "bp ±%" "ossl ±%"
for it in $items; do
	bw=$(col 1 <"$tmp/bp.$it" | median); ow=$(col 1 <"$tmp/os.$it" | median)
	bc=$(col 2 <"$tmp/bp.$it" | median); oc=$(col 2 <"$tmp/os.$it" | median)
	rw=$(ratio "$bw" "$ow"); rc=$(ratio "$bc" "$oc")
	echo "$rw" >>"$tmp/ratios.wall"
	echo "$rc" >>"$tmp/ratios.cpu"
	printf '%-26s %14.0f %14.0f %6s   %14.0f %14.0f %6s  %7s %7s\n' "$it" "$bw" "$ow" "$rw" \
		"$bc" "$oc" "$rc" "$(col 1 <"$tmp/bp.$it" | spread)" "$(col 1 <"$tmp/os.$it" | spread)"
done
echo "median ratio boardperf/openssl-speed: $(median <"$tmp/ratios.wall") wall clock," \
	"$(median <"$tmp/ratios.cpu") per CPU second ($rounds rounds of ${secs} s)"
