#!/usr/bin/env bash
# boardperf cpu vs `openssl speed` on the same items, in one run. The machines are shared and
# noisy (a neighbour moves a figure by several percent within a minute), so every item is a
# pair measured back to back: boardperf on that one item, then openssl speed on it (or the other
# way round, alternating by round and item), both pinned to the same core; the ratio of each
# pair is taken, and an item's figure is the median of its pairs' ratios. A slow drift of the
# machine then moves both halves of a pair alike and cancels, which a whole run of one tool
# followed by a whole run of the other (a minute apart) does not. Two ratios per item:
# - wall: operations per second of wall-clock time (boardperf's figures; openssl's count
#   over its -seconds, what `openssl speed -elapsed` prints);
# - cpu: operations per second of CPU time the worker got (boardperf's figure ÷ its ITEM.cpu
#   share; openssl speed's own default, which divides by user time). A process that shares
#   its core runs fewer operations per wall second but about as many per CPU second, so on a
#   busy machine this is the ratio that compares the two tools' methods; on a quiet one both
#   agree.
# The last line is the median of each over all items, and the item furthest behind.
# Usage: bench/cpu.sh [BOARDPERF] [ROUNDS] [SECONDS] (CORE in the environment: the core both
# are pinned to, default the last one)
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
# A unit is what one run of each tool measures: a signature algorithm (its sign and verify
# items) or a hash or cipher at one size (one item).
units=""
for a in $sigs; do units+=" $a"; done
for a in $syms; do for s in $sizes; do units+=" $a:$s"; done; done
items=""
for a in $sigs; do items+=" $a.sign $a.verify"; done
for a in $syms; do for s in $sizes; do items+=" $a.$s"; done; done

core=${CORE:-$(($(nproc) - 1))}
[[ $core =~ ^[0-9]+$ ]] && ((core < $(nproc))) || die "CORE must be a core number below $(nproc), not '$core'"
need taskset util-linux
pin() { taskset -c "$core" "$@"; }

# unit_items UNIT: the items one unit measures.
unit_items() {
	case $1 in
	*:*) echo "${1%%:*}.${1#*:}" ;;
	*) echo "$1.sign $1.verify" ;;
	esac
}

# run_bp UNIT: appends "wall-rate cpu-rate" to $tmp/bp.ITEM.now for each item of UNIT.
run_bp() {
	local j it algo=${1%%:*} size=16
	[[ $1 == *:* ]] && size=${1#*:}
	j=$(pin "$bp" cpu --algo "$algo" --sizes "$size" -t "$secs" --json)
	for it in $(unit_items "$1"); do
		jq -r --arg n "$it" '[.metrics[] | select(.name == $n or .name == $n + ".cpu")
			| .value] | "\(.[0]) \(.[0] / .[1] * 100)"' <<<"$j" >"$tmp/bp.$it.now"
	done
}

# openssl speed -mr prints, per item, "+R*:count:...:seconds" on stderr with the seconds in
# user CPU time (no -elapsed), and "+F*" with the rate over those seconds. The wall-clock
# rate is the count over -seconds, which its alarm ends.
ossl() { pin openssl speed -seconds "$secs" -mr "$@" 2>&1; }
# run_ossl UNIT: as run_bp, into $tmp/os.ITEM.now.
run_ossl() {
	local algo=${1%%:*} size oname
	case $algo in
	rsa1024 | rsa2048 | ecdsa-p256 | ed25519)
		[[ $algo == ecdsa-p256 ]] && oname=ecdsap256 || oname=$algo
		# The first "+R" line is the signing count, the second the verifying one.
		ossl "$oname" | awk -F: -v secs="$secs" -v out="$tmp/os.$algo" '
			/^\+R[0-9]+:/ { n++; c[n] = $2; t[n] = $NF }
			END {
				printf "%s %s\n", c[1] / secs, (t[1] > 0 ? c[1] / t[1] : "nan") > (out ".sign.now")
				printf "%s %s\n", c[2] / secs, (t[2] > 0 ? c[2] / t[2] : "nan") > (out ".verify.now")
			}'
		;;
	*)
		size=${1#*:}
		case $algo in
		sha1) set -- sha1; oname=sha1 ;;
		sha256) set -- sha256; oname=sha256 ;;
		aes-128-gcm) set -- -evp aes-128-gcm; oname=AES-128-GCM ;;
		chacha20-poly1305) set -- -evp chacha20-poly1305; oname=ChaCha20-Poly1305 ;;
		esac
		ossl -bytes "$size" "$@" | awk -F: -v n="$oname" -v s="$size" -v secs="$secs" \
			'$1 == "+R" && $3 == n { print $2 * s / secs, ($4 > 0 ? $2 * s / $4 : "nan") }' \
			>"$tmp/os.$algo.$size.now"
		;;
	esac
}

# pair UNIT: one pair; keeps both tools' figures and the pair's two ratios per item.
pair() {
	local it
	for it in $(unit_items "$1"); do
		[[ -s $tmp/bp.$it.now && -s $tmp/os.$it.now ]] ||
			die "no figure for $it (boardperf: $(cat "$tmp/bp.$it.now"), openssl: $(cat "$tmp/os.$it.now"))"
		cat "$tmp/bp.$it.now" >>"$tmp/bp.$it"
		cat "$tmp/os.$it.now" >>"$tmp/os.$it"
		paste -d' ' "$tmp/bp.$it.now" "$tmp/os.$it.now" |
			awk '{ printf "%.4f %.4f\n", ($3 > 0 ? $1 / $3 : 0), ($4 > 0 ? $2 / $4 : 0) }' >>"$tmp/pair.$it"
	done
}

for ((i = 1; i <= rounds; i++)); do
	k=0
	for u in $units; do
		if (((i + k) % 2)); then run_bp "$u"; run_ossl "$u"; else run_ossl "$u"; run_bp "$u"; fi
		pair "$u"
		k=$((k + 1))
	done
	echo "round $i of $rounds done" >&2
done

col() { awk -v c="$1" '{ print $c }'; }
# spread: half the range of one tool's wall-clock rounds, in percent of their mean: how far
# this machine moves a figure by itself, beside which a ratio's distance from 1 is read.
spread() { awk '{ v = $1 + 0; s += v; n++; if (n == 1 || v < lo) lo = v; if (n == 1 || v > hi) hi = v }
	END { printf "%.1f", n && s ? (hi - lo) / 2 / (s / n) * 100 : 0 }'; }
printf '%-26s %14s %14s %6s   %14s %14s %6s  %7s %7s %7s\n' item "boardperf" "openssl speed" wall \
	"bp/cpu-s" "openssl/cpu-s" cpu "bp ±%" "ossl ±%" "pair ±%"
for it in $items; do
	bw=$(col 1 <"$tmp/bp.$it" | median); ow=$(col 1 <"$tmp/os.$it" | median)
	bc=$(col 2 <"$tmp/bp.$it" | median); oc=$(col 2 <"$tmp/os.$it" | median)
	rw=$(col 1 <"$tmp/pair.$it" | median); rc=$(col 2 <"$tmp/pair.$it" | median)
	rw=$(printf '%.3f' "$rw"); rc=$(printf '%.3f' "$rc")
	echo "$rw $it" >>"$tmp/ratios.wall"
	echo "$rc $it" >>"$tmp/ratios.cpu"
	printf '%-26s %14.0f %14.0f %6s   %14.0f %14.0f %6s  %7s %7s %7s\n' "$it" "$bw" "$ow" "$rw" \
		"$bc" "$oc" "$rc" "$(col 1 <"$tmp/bp.$it" | spread)" "$(col 1 <"$tmp/os.$it" | spread)" \
		"$(col 1 <"$tmp/pair.$it" | spread)"
done
echo "median ratio boardperf/openssl-speed: $(median <"$tmp/ratios.wall") wall clock, worst" \
	"$(worst "$tmp/ratios.wall" higher); $(median <"$tmp/ratios.cpu") per CPU second, worst" \
	"$(worst "$tmp/ratios.cpu" higher) ($rounds rounds of ${secs} s, pairs on core $core)"
