#!/usr/bin/env bash
# boardperf cpu against `openssl speed` on the same items, in one run, agreement within ±10 %.
# The machine is shared and noisy (a neighbour, or another job of this CI, moves a figure by
# several percent within seconds), so each unit (a signature algorithm's sign and verify, a
# cipher at one size) is a pair measured back to back on one core, boardperf then openssl or
# the other way round (alternating): a drift in load meets both tools alike, where whole runs
# of one tool then the other (seconds apart) do not; an item's figure is each tool's best.
# Both sides' rates are per second of the CPU time the benchmark got (boardperf: its figure ÷ ITEM.cpu; openssl speed: its default, which divides
# by user time): a tool sharing its core runs fewer operations per wall second, but about as
# many per CPU second. aes-128-gcm at 16 bytes is the per-message cost, where boardperf once
# read 1.11x openssl speed (its context lacked openssl's padding setting, which OpenSSL
# re-applies on every key and IV set). bench/cpu.sh does the same over every item, at ±3 %.
# Usage: test_cpu.sh BOARDPERF
set -u
bp=$1
. "$(dirname "$0")/tap.sh"
# Three pairs: in CI's runs (2026-12-04) every pair of every item was within 4 % of
# openssl speed's, against a ±10 % bound; five took 25 s more to say the same. A unit whose
# pairs disagree with each other (ratios more than 10 % apart) was measured while the host
# moved under one half of a pair: its pairs go on, to at most nine, and the best of them all
# decides, below (CI run of stop 43: verify's three pairs read 0.92, 0.99 and 1.17, sign's
# median 0.88; a neighbour on the host, as the figures part runs alone). The rule reads only how far
# the pairs spread, never whether they pass: a boardperf steadily 15 % off spreads little and
# fails at three pairs.
pairs=${BP_CPU_PAIRS:-3}
max_pairs=${BP_CPU_MAX_PAIRS:-9}
checks="sign verify sha aes16 aes chacha"

# A sanitizer build intercepts every malloc OpenSSL makes (RSA verify allocates per call), so
# its figures say nothing about speed: the comparison runs only in an optimised build.
# Parts (tap.sh): the comparisons are the figures part (the optimised build, alone); the
# options and the JSON contract the plain part (ASan, side by side).
sanitize=$("$bp" info --json | jq -r '.env.boardperf.sanitize')
if ! figures; then
	pairs=0
	checks=
elif [ "$sanitize" != none ]; then
	pairs=0
	for item in $checks; do
		tap_n=$((tap_n + 1))
		echo "ok $tap_n - $item vs openssl speed # SKIP sanitizer build ($sanitize)"
	done
fi

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# Both tools on the last core the test may use, so that the two halves of a pair share it.
core=$(taskset -pc $$ | sed 's/.*: //; s/.*[,-]//')
pin() { taskset -c "$core" "$@"; }

# metric NAME JSON: boardperf's rate per CPU second (the figure over its share of a core).
metric() {
	jq -r --arg n "$1" '[.metrics[] | select(.name == $n or .name == $n + ".cpu") | .value]
		| .[0] / .[1] * 100' <<<"$2"
}
# ossl ARGS...: openssl speed's "+F" line, rates per user-CPU second (no -elapsed).
ossl() { pin openssl speed -seconds 1 -mr "$@" 2>/dev/null | grep '^+F'; }
# bpc ALGO SIZE: boardperf cpu on one algorithm (a size for a cipher or hash), its JSON.
bpc() { pin "$bp" cpu --algo "$1" ${2:+--sizes "$2"} -t 1 --json; }

# unit KIND: one side of a unit's pair, its figures appended to $tap_tmp/SIDE.ITEM.
unit() {
	local j r
	case $1 in
	bp:rsa) j=$(bpc rsa2048)
		metric rsa2048.sign "$j" >>"$tap_tmp/bp.sign"
		metric rsa2048.verify "$j" >>"$tap_tmp/bp.verify" ;;
	os:rsa) r=$(ossl rsa2048)
		cut -d: -f4 <<<"$r" >>"$tap_tmp/os.sign"
		cut -d: -f5 <<<"$r" >>"$tap_tmp/os.verify" ;;
	bp:sha) metric sha256.8192 "$(bpc sha256 8192)" >>"$tap_tmp/bp.sha" ;;
	os:sha) ossl -bytes 8192 sha256 | cut -d: -f4 >>"$tap_tmp/os.sha" ;;
	bp:aes16) metric aes-128-gcm.16 "$(bpc aes-128-gcm 16)" >>"$tap_tmp/bp.aes16" ;;
	os:aes16) ossl -bytes 16 -evp aes-128-gcm | cut -d: -f4 >>"$tap_tmp/os.aes16" ;;
	bp:aes) metric aes-128-gcm.16384 "$(bpc aes-128-gcm 16384)" >>"$tap_tmp/bp.aes" ;;
	os:aes) ossl -bytes 16384 -evp aes-128-gcm | cut -d: -f4 >>"$tap_tmp/os.aes" ;;
	bp:chacha) metric chacha20-poly1305.16384 "$(bpc chacha20-poly1305 16384)" >>"$tap_tmp/bp.chacha" ;;
	os:chacha) ossl -bytes 16384 -evp chacha20-poly1305 | cut -d: -f4 >>"$tap_tmp/os.chacha" ;;
	esac
}

# pair UNIT: one pair of UNIT. Who goes first alternates, by pair and unit, so that neither
# always runs on a warmer (or cooler) core.
n=0
pair() {
	n=$((n + 1))
	if ((n % 2)); then unit "bp:$1"; unit "os:$1"; else unit "os:$1"; unit "bp:$1"; fi
}
# ratios ITEM: boardperf / openssl speed of each of ITEM's pairs, one a line.
ratios() {
	paste -d' ' "$tap_tmp/bp.$1" "$tap_tmp/os.$1" |
		awk '$1 > 0 && $2 > 0 { printf "%.4f\n", $1 / $2 }'
}
# unsteady UNIT: true when an item of UNIT has pairs more than 10 % apart.
unsteady() {
	local item
	for item in $([ "$1" = rsa ] && echo sign verify || echo "$1"); do
		ratios "$item" | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 }
			END { exit !(NR > 0 && hi > lo * 1.1) }' && return 0
	done
	return 1
}

for ((i = 1; i <= pairs; i++)); do
	for u in rsa sha aes16 aes chacha; do pair "$u"; done
done
for u in $( ((pairs)) && echo rsa sha aes16 aes chacha); do
	for ((i = pairs; i < max_pairs; i++)); do
		unsteady "$u" || break
		pair "$u"
	done
done

# The figure compared is each tool's best pair half: a neighbour only ever takes speed away
# (a VM on the core's other hyperthread, or one sharing its caches, slows what a CPU second
# does; CPU time does not count it), so the fastest of a tool's runs is the one the host
# disturbed least, as a benchmark's best-of-N. CI run 73: aes's 9 pairs read 0.85 to 1.40
# (median 1.11): the host moved under most pairs by more than the ±10 % checked. A boardperf
# steadily off is as far off at its best. The pairs' ratios and median are printed beside it.
best() { sort -g "$tap_tmp/$1" | tail -1; }
for item in $( ((pairs)) && echo "$checks"); do
	rs=$(ratios "$item")
	got=$(wc -l <<<"$rs")
	b=$(best "bp.$item") o=$(best "os.$item")
	r=$(awk -v b="${b:-0}" -v o="${o:-0}" 'BEGIN { if (o > 0) printf "%.4f", b / o; else print 0 }')
	echo "# $item: ratios of $got pairs (boardperf / openssl speed per CPU second): $(sort -g <<<"$rs" | paste -sd' '); median $(median <<<"$rs"); best $b / $o"
	[ "$got" -ge "$pairs" ] && [ "$(wc -l <"$tap_tmp/bp.$item")" = "$got" ] &&
		awk -v r="$r" 'BEGIN { exit !(r >= 0.9 && r <= 1.1) }'
	ok $? "$item within ±10 % of openssl speed (best of each over $got pairs: ratio $r)"
done

if plain; then
	# Options: unknown algorithms list the valid ones; bad sizes and thread counts name the value.
	expect_exit 2 "unknown algorithm" "$bp" cpu --algo rsa2048,blowfish
	grep -q "blowfish': unknown algorithm; expected a comma-separated list of: rsa1024, rsa2048" <<<"$err"
	ok $? "unknown algorithm lists the valid ones"
	expect_exit 2 "bad size" "$bp" cpu --sizes 16,12x
	grep -q -- "--sizes '12x'" <<<"$err"; ok $? "bad size is named"
	expect_exit 2 "bad thread count" "$bp" cpu --threads 0
	grep -q -- "--threads '0'" <<<"$err"; ok $? "bad thread count is named"

	# The contract: stable names, base units, every item and its CPU share.
	expect_exit 0 "cpu --json, every kind" "$bp" cpu --algo rsa1024,ed25519,md5,chacha20-poly1305 \
		--sizes 64 -t 0.05 --threads 2 --json
	for n in rsa1024.sign rsa1024.verify ed25519.sign ed25519.verify md5.64 chacha20-poly1305.64; do
		jq -e --arg n "$n" '[.metrics[] | select(.name == $n and .value > 0)] | length == 1' \
			<<<"$out" >/dev/null; ok $? "metric $n present and positive"
		jq -e --arg n "$n.all" '[.metrics[] | select(.name == $n and .value > 0)] | length == 1' \
			<<<"$out" >/dev/null; ok $? "metric $n.all present"
	done
	jq -e '[.metrics[] | select(.name == "rsa1024.sign")][0].unit == "op/s"
		and [.metrics[] | select(.name == "md5.64")][0].unit == "B/s"
		and [.metrics[] | select(.name == "md5.64.cpu")][0].unit == "percent"
		and (.params.openssl | startswith("OpenSSL"))
		and (.params.cpu_features | type == "array")' <<<"$out" >/dev/null
	ok $? "units, OpenSSL version and CPU features recorded"
fi
tap_done
