#!/usr/bin/env bash
# boardperf cpu against `openssl speed` on the same items, in one run, agreement within ±10 %.
# The machine is shared and noisy: a neighbour on the core's other hyperthread, or on the host,
# moves what a CPU second does by up to 25 % for seconds at a time (2026-12-06: openssl speed
# alone read aes-128-gcm at 16 KiB from 3.3 to 5.4 GB/s in six runs a second apart), and CPU
# time does not count it. So each unit (a signature algorithm's sign and verify, a cipher at
# one size) is a pair of both tools started together on one core: the scheduler hands the core
# to one then the other every few milliseconds, so whatever the host does in those seconds
# meets both alike. Both sides' rates are per second of the CPU time the benchmark got
# (boardperf: its figure ÷ ITEM.cpu; openssl speed: its default, which divides by user time):
# sharing the core halves what each does per wall second, not per CPU second. Measured the
# same hour on a noisy host: pairs run one after the other read 0.80 to 1.34, pairs run
# together 1.00 to 1.11; on a quiet one both within 3 %. aes-128-gcm at 16 bytes is the
# per-message cost, where boardperf once read 1.11x openssl speed (its context lacked openssl's
# padding setting, which OpenSSL re-applies on every key and IV set). bench/cpu.sh does the
# same over every item, at ±3 %.
# Usage: test_cpu.sh BOARDPERF
set -u
bp=$1
. "$(dirname "$0")/tap.sh"
# Three pairs, the item's figure their median ratio. A unit whose pairs disagree with each
# other (ratios more than 10 % apart) met the host moving at a scale finer than the
# scheduler's turns: its pairs go on, to at most nine, and the median of them all decides.
# The rule reads only how far the pairs spread, never whether they pass: a boardperf steadily
# 15 % off spreads little and fails at three pairs.
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
# ossl SECONDS ARGS...: openssl speed's "+F" line, rates per user-CPU second (no -elapsed).
ossl() { local t=$1; shift; pin openssl speed -seconds "$t" -mr "$@" 2>/dev/null | grep '^+F'; }
# bpc SECONDS ALGO SIZE: boardperf cpu on one algorithm (a size for a cipher or hash), its JSON.
bpc() { pin "$bp" cpu --algo "$2" ${3:+--sizes "$3"} -t "$1" --json; }

# pair UNIT: both tools on UNIT at once, on one core, 2 s of each item (about 1 s of CPU time
# each); their figures appended to $tap_tmp/bp.ITEM and os.ITEM. Signatures: both sign for
# 2 s, then both verify for 2 s.
secs=2
pair() {
	local algo size items j r evp it item name field
	case $1 in
	rsa) algo=rsa2048 size='' items="sign:rsa2048.sign:4 verify:rsa2048.verify:5" ;;
	sha) algo=sha256 size=8192 items="sha:sha256.8192:4" ;;
	aes16) algo=aes-128-gcm size=16 items="aes16:aes-128-gcm.16:4" ;;
	aes) algo=aes-128-gcm size=16384 items="aes:aes-128-gcm.16384:4" ;;
	chacha) algo=chacha20-poly1305 size=16384 items="chacha:chacha20-poly1305.16384:4" ;;
	esac
	bpc "$secs" "$algo" "$size" >"$tap_tmp/bp.json" &
	if [ "$1" = rsa ]; then
		r=$(ossl "$secs" rsa2048)
	else
		# the digest by name (openssl speed's own table), the ciphers through EVP
		evp=(-evp)
		[ "$1" = sha ] && evp=()
		r=$(ossl "$secs" -bytes "$size" "${evp[@]}" "$algo")
	fi
	wait $!
	j=$(<"$tap_tmp/bp.json")
	for it in $items; do
		IFS=: read -r item name field <<<"$it"
		metric "$name" "$j" >>"$tap_tmp/bp.$item"
		cut -d: -f"$field" <<<"$r" >>"$tap_tmp/os.$item"
	done
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

for item in $( ((pairs)) && echo "$checks"); do
	rs=$(ratios "$item")
	got=$(wc -l <<<"$rs")
	r=$(median <<<"$rs")
	echo "# $item: ratios of $got pairs (boardperf / openssl speed per CPU second, run together): $(sort -g <<<"$rs" | paste -sd' ')"
	[ "$got" -ge "$pairs" ] && [ "$(wc -l <"$tap_tmp/bp.$item")" = "$got" ] &&
		awk -v r="${r:-0}" 'BEGIN { exit !(r >= 0.9 && r <= 1.1) }'
	ok $? "$item within ±10 % of openssl speed (median of $got pairs: ratio $r)"
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
