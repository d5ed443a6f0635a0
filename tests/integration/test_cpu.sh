#!/usr/bin/env bash
# boardperf cpu against `openssl speed` on the same items, in one run: interleaved rounds
# (the machine is shared and noisy), medians, agreement within ±10 %. Both sides' rates are
# per second of the CPU time the benchmark got (boardperf: its figure ÷ ITEM.cpu; openssl
# speed: its default, which divides by user time): a tool that shares its core with another
# process runs fewer operations per wall second, but about as many per CPU second, so this
# compares the two methods even on a busy machine. aes-128-gcm at 16 bytes is the per-message
# cost, where boardperf once read 1.11x openssl speed (its context lacked openssl's padding
# setting, which OpenSSL re-applies on every key and IV set).
# Usage: test_cpu.sh BOARDPERF
set -u
bp=$1
. "$(dirname "$0")/tap.sh"
rounds=${BP_CPU_ROUNDS:-3}
checks="sign verify sha aes16 aes chacha"

# A sanitizer build intercepts every malloc OpenSSL makes (RSA verify allocates per call), so
# its figures say nothing about speed: the comparison runs only in an optimised build.
sanitize=$("$bp" info --json | jq -r '.env.boardperf.sanitize')
if [ "$sanitize" != none ]; then
	rounds=0
	for item in $checks; do
		tap_n=$((tap_n + 1))
		echo "ok $tap_n - $item vs openssl speed # SKIP sanitizer build ($sanitize)"
	done
fi

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# metric NAME JSON: boardperf's rate per CPU second (the figure over its share of a core).
metric() {
	jq -r --arg n "$1" '[.metrics[] | select(.name == $n or .name == $n + ".cpu") | .value]
		| .[0] / .[1] * 100' <<<"$2"
}
# ossl ARGS...: openssl speed's "+F" line, rates per user-CPU second (no -elapsed).
ossl() { openssl speed -seconds 2 -mr "$@" 2>/dev/null | grep '^+F'; }

for ((i = 1; i <= rounds; i++)); do
	# Alternate who goes first so that a drift in machine load hits both alike.
	for side in $( ((i % 2)) && echo "bp ossl" || echo "ossl bp"); do
		if [ "$side" = bp ]; then
			j=$("$bp" cpu --algo rsa2048,sha256,aes-128-gcm,chacha20-poly1305 \
				--sizes 16,8192,16384 -t 1 --json)
			metric rsa2048.sign "$j" >>"$tap_tmp/bp.sign"
			metric rsa2048.verify "$j" >>"$tap_tmp/bp.verify"
			metric sha256.8192 "$j" >>"$tap_tmp/bp.sha"
			metric aes-128-gcm.16 "$j" >>"$tap_tmp/bp.aes16"
			metric aes-128-gcm.16384 "$j" >>"$tap_tmp/bp.aes"
			metric chacha20-poly1305.16384 "$j" >>"$tap_tmp/bp.chacha"
		else
			rsa=$(ossl rsa2048)
			cut -d: -f4 <<<"$rsa" >>"$tap_tmp/os.sign"
			cut -d: -f5 <<<"$rsa" >>"$tap_tmp/os.verify"
			ossl -bytes 8192 sha256 | cut -d: -f4 >>"$tap_tmp/os.sha"
			ossl -bytes 16 -evp aes-128-gcm | cut -d: -f4 >>"$tap_tmp/os.aes16"
			ossl -bytes 16384 -evp aes-128-gcm | cut -d: -f4 >>"$tap_tmp/os.aes"
			ossl -bytes 16384 -evp chacha20-poly1305 | cut -d: -f4 >>"$tap_tmp/os.chacha"
		fi
	done
done

for item in $( ((rounds)) && echo "$checks"); do
	b=$(median <"$tap_tmp/bp.$item")
	o=$(median <"$tap_tmp/os.$item")
	r=$(awk -v b="$b" -v o="$o" 'BEGIN { printf "%.3f", b / o }')
	echo "# $item: boardperf $b, openssl speed $o per CPU second, ratio $r"
	awk -v r="$r" 'BEGIN { exit !(r >= 0.9 && r <= 1.1) }'
	ok $? "$item within ±10 % of openssl speed (ratio $r)"
done

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
tap_done
