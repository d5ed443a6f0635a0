# TAP helpers for integration scripts (sourced). Each check prints "ok N - what".
tap_n=0
tap_failed=0

ok() { # ok CONDITION-EXIT-STATUS DESCRIPTION
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $tap_n - $2"
	else
		echo "not ok $tap_n - $2"
		tap_failed=$((tap_failed + 1))
	fi
}

skip() { # skip DESCRIPTION REASON: a check that could not run here, counted as skipped
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - $1 # SKIP $2"
}

# expect_exit WANT DESCRIPTION CMD...: runs CMD, stores stdout/stderr in $out/$err.
expect_exit() {
	local want=$1 what=$2 got
	shift 2
	out=$("$@" 2>"$tap_tmp/stderr") && got=0 || got=$?
	err=$(cat "$tap_tmp/stderr")
	[ "$got" -eq "$want" ]
	ok $? "$what (exit $got, want $want)"
	[ "$got" -eq "$want" ] || printf '#   stderr: %s\n' "$err"
}

tap_done() {
	echo "1..$tap_n"
	[ "$tap_failed" -eq 0 ]
}

tap_tmp=$(mktemp -d)
trap 'rm -rf "$tap_tmp"' EXIT
