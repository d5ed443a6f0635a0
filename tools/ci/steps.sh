# Sourced by .ci/run and `make test`: each step's wall time beside its budget, so that the
# next feature's tests are seen to fit (docs/CI.md states the budgets and why).
#
#   step NAME BUDGET_SECONDS CMD...   runs CMD, records "NAME 93s/120s", returns CMD's status
#   steps_report LABEL                prints "LABEL: NAME 93s/120s ..." and, on stderr, one
#                                     warning naming each step over its budget
#
# Over budget warns and never fails: the machine CI runs on is shared, and a slow hour must
# not block a change whose tests pass. The budgets are what a quiet machine needs plus a
# margin; a step that keeps exceeding one is what to trim (or the budget to argue for in
# docs/CI.md).
steps_times=
steps_over=
step() {
	local name=$1 budget=$2 t=$SECONDS rc d
	shift 2
	"$@"
	rc=$?
	d=$((SECONDS - t))
	steps_times+=" $name ${d}s/${budget}s"
	[ "$d" -le "$budget" ] || steps_over+=" $name ${d}s (budget ${budget}s)"
	return "$rc"
}
steps_report() {
	echo "$1:$steps_times"
	[ -z "$steps_over" ] ||
		echo "warning: over budget:$steps_over; budgets in docs/CI.md (a warning only: the machine may be busy)" >&2
}
