# Shared helpers for bench scripts (sourced). The convention: run boardperf and the stock
# tool alternately in one run (the machines are shared and noisy, so interleave and repeat),
# print each round's pair, and end with one line: "median ratio <what>: X.XX".

# median: the median of the numbers on stdin, one per line.
median() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "nan"; exit 1 }
		if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# ratio A B: A / B with three decimals.
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "nan"; else printf "%.3f\n", a / b }'
}

# bench_rounds N CMD_A CMD_B: runs "CMD_A" and "CMD_B" (each printing one number) N times,
# alternating which goes first; prints "round i: a b a/b" and finally the median ratio.
bench_rounds() {
	local n=$1 a=$2 b=$3 i va vb
	local ratios
	ratios=$(mktemp)
	for ((i = 1; i <= n; i++)); do
		if ((i % 2)); then va=$(eval "$a"); vb=$(eval "$b"); else vb=$(eval "$b"); va=$(eval "$a"); fi
		echo "round $i: boardperf=$va stock=$vb ratio=$(ratio "$va" "$vb")"
		ratio "$va" "$vb" >>"$ratios"
	done
	echo "median ratio: $(median <"$ratios")"
	rm -f "$ratios"
}
