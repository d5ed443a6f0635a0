#!/usr/bin/env bash
# boardperf cpu against `openssl speed` on the same items, in one run: interleaved rounds
# (the machine is shared and noisy), medians, agreement within ±10 %. Both sides divide by
# wall-clock time (`-elapsed`), as boardperf does.
# Usage: test_cpu.sh BOARDPERF
set -u
bp=$1
. "$(dirname "$0")/tap.sh"
rounds=${BP_CPU_ROUNDS:-3}

# A sanitizer build intercepts every malloc OpenSSL makes (RSA verify allocates per call), so
# its figures say nothing about speed: the comparison runs only in an optimised build.
sanitize=$("$bp" info --json | jq -r '.env.boardperf.sanitize')
if [ "$sanitize" != none ]; then
	rounds=0
	for item in sign verify sha aes chacha; do
		tap_n=$((tap_n + 1))
		echo "ok $tap_n - $item vs openssl speed # SKIP sanitizer build ($sanitize)"
	done
fi

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

metric() { jq -r --arg n "$1" '.metrics[] | select(.name == $n) | .value' <<<"$2"; }

for ((i = 1; i <= rounds; i++)); do
	# Alternate who goes first so that a drift in machine load hits both alike.
	for side in $( ((i % 2)) && echo "bp ossl" || echo "ossl bp"); do
		if [ "$side" = bp ]; then
			j=$("$bp" cpu --algo rsa2048,sha256,aes-128-gcm,chacha20-poly1305 --sizes 8192,16384 -t 1 --json)
			metric rsa2048.sign "$j" >>"$tap_tmp/bp.sign"
			metric rsa2048.verify "$j" >>"$tap_tmp/bp.verify"
			metric sha256.8192 "$j" >>"$tap_tmp/bp.sha"
			metric aes-128-gcm.16384 "$j" >>"$tap_tmp/bp.aes"
			metric chacha20-poly1305.16384 "$j" >>"$tap_tmp/bp.chacha"
		else
			rsa=$(openssl speed -elapsed -seconds 1 -mr rsa2048 2>/dev/null | grep '^+F2:')
			cut -d: -f4 <<<"$rsa" >>"$tap_tmp/os.sign"
			cut -d: -f5 <<<"$rsa" >>"$tap_tmp/os.verify"
			openssl speed -elapsed -seconds 1 -mr -bytes 8192 sha256 2>/dev/null \
				| grep '^+F:' | cut -d: -f4 >>"$tap_tmp/os.sha"
			openssl speed -elapsed -seconds 1 -mr -bytes 16384 -evp aes-128-gcm 2>/dev/null \
				| grep '^+F:' | cut -d: -f4 >>"$tap_tmp/os.aes"
			openssl speed -elapsed -seconds 1 -mr -bytes 16384 -evp chacha20-poly1305 \
				2>/dev/null | grep '^+F:' | cut -d: -f4 >>"$tap_tmp/os.chacha"
		fi
	done
done

for item in $( ((rounds)) && echo sign verify sha aes chacha); do
	b=$(median <"$tap_tmp/bp.$item")
	o=$(median <"$tap_tmp/os.$item")
	r=$(awk -v b="$b" -v o="$o" 'BEGIN { printf "%.3f", b / o }')
	echo "# $item: boardperf $b, openssl speed $o, ratio $r"
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
