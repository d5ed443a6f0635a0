#!/usr/bin/env bash
# boardperf compare on real results: two short cpu runs and two tcp runs against serve on
# 127.0.0.1 with -l 64 and -l 1400, compared as files in every format. The figures in the
# tables must be the documents' own values and ratios, the differing length must be
# flagged (the port, also different, must not), a suite is compared test by test, and the
# errors are one line with the right exit status. With the results database (`--db`), the
# same runs by id and by label.
# Usage: test_compare.sh BOARDPERF
set -u
bp=$(realpath "$1")  # the test works in its own folder
. "$(dirname "$0")/tap.sh"

bp_ports 2; port=$BP_PORT  # port, port + 1 (tap.sh)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$tap_tmp"; }
trap cleanup EXIT
start_server() {
	local p=$1 log="$tap_tmp/serve-$1.log"
	"$bp" serve -1 -p "$p" 2>"$log" &
	pids+=($!)
	for _ in $(seq 50); do grep -qs listening "$log" && return 0; sleep 0.1; done
	return 1
}
cd "$tap_tmp" || exit 1

expect_exit 0 "cpu run a" "$bp" cpu --algo sha256 -t 0.2 --json; echo "$out" >a.json
expect_exit 0 "cpu run b" "$bp" cpu --algo sha256 -t 0.2 --json; echo "$out" >b.json
start_server "$port"; ok $? "server on $port"
start_server $((port + 1)); ok $? "server on $((port + 1))"
expect_exit 0 "tcp -l 64" "$bp" tcp -c 127.0.0.1 -p "$port" -t 0.5 -l 64 --json
echo "$out" >t64.json
expect_exit 0 "tcp -l 1400" "$bp" tcp -c 127.0.0.1 -p $((port + 1)) -t 0.5 -l 1400 --json
echo "$out" >t1400.json

# --- JSON: every row's values are the documents', its ratios theirs over the first ----
expect_exit 0 "compare --json" "$bp" compare a.json b.json --json
echo "$out" >ab.json
check_figures() { # check_figures COMPARE.json A.json B.json: prints how many rows, or fails
	jq -n --slurpfile c "$1" --slurpfile a "$2" --slurpfile b "$3" '
		def val($d; $n): [$d[0].metrics[] | select(.name == $n) | .value][0];
		def near($x; $y): ($x - $y | fabs) <= 1e-12 * ([($x | fabs), ($y | fabs), 1e-300] | max);
		[$c[0].tests[0].metrics[]
		 | . as $r
		 | ($r.name | startswith("latency.")) or
		   (($r.values[0] == val($a; $r.name)) and ($r.values[1] == val($b; $r.name))
		    and ($r.ratios[0] == 1)
		    and (($r.values[0] == 0) or near($r.ratios[1]; $r.values[1] / $r.values[0])))]
		| if length > 0 and all then length else error("mismatch") end'
}
n=$(check_figures ab.json a.json b.json) && [ "$n" -gt 0 ]
ok $? "every cpu figure and ratio in the JSON table is the documents' ($n rows)"
jq -e --slurpfile a a.json '
	.tests[0].metrics | map(.name) == ($a[0].metrics | map(.name))' ab.json >/dev/null
ok $? "a row for each metric the runs have, in their order"
jq -e '[.tests[0].metrics[] | select(.better != "none")
	| if .marks[1] == "same" then (.ratios[1] - 1 | fabs) < 0.005
	  else .marks[1] == (if (.values[1] > .values[0]) == (.better == "higher")
			     then "better" else "worse" end) end] | length > 0 and all' \
	ab.json >/dev/null
ok $? "better/worse follow each metric's direction"
jq -e '[.tests[0].metrics[] | select(.better == "none") | .marks[1] == null] | all' \
	ab.json >/dev/null
ok $? "a metric without a direction gets no mark"
jq -e '.tests[0].params_differ == [] and .runs[0].name == "a.json" and
	.runs[0].collected_at != null' ab.json >/dev/null
ok $? "same parameters: nothing flagged; runs named by their files"

# --- the other formats show the same figures -------------------------------------------
# (at the widest: one line per row, whatever the terminal; test_compare checks the parts)
expect_exit 0 "compare (text)" env COLUMNS=1000 "$bp" compare a.json b.json
text=$out
m=$(jq -r '.metrics[0].name' a.json)
grep -q "^$m " <<<"$text" && grep -q "^geometric mean " <<<"$text"
ok $? "text: a row per metric ($m) and the geometric mean"
expect_exit 0 "compare --markdown" "$bp" compare a.json b.json --markdown
md=$out
grep -q '^| metric | a.json | b.json | b.json vs a.json |$' <<<"$md" &&
	grep -q '^| :--- | ---: | ---: | ---: |$' <<<"$md" && grep -q '^Runs: \*\*a.json\*\* (cpu, ' <<<"$md"
ok $? "markdown: heading line, table head and alignment row"
# Each figure in the Markdown is the one the text shows (the same cells, two layouts).
rows=$(awk -F' [|] ' '/^\| [a-z0-9]/ && !/^\| metric/ && !/^\| :---/ { sub(/^\| /, "", $1); print $1 "\t" $2 "\t" $3 }' <<<"$md")
bad=$(while IFS=$'\t' read -r name va vb; do
		name=${name//\\/}
		grep -qE "^$name +$va +$vb( |$)" <<<"$text" || echo "$name"
	done <<<"$rows")
n=$(grep -c . <<<"$rows")
[ -z "$bad" ] && [ "$n" -ge 12 ]
ok $? "markdown rows carry the text table's figures ($n rows${bad:+; not: $bad})"
cols=$(grep '^| ' <<<"$md" | awk -F' [|] ' '{ print NF }' | sort -u)
[ "$cols" = 4 ]; ok $? "markdown: every row has four cells ($cols)"

expect_exit 0 "compare --csv" "$bp" compare a.json b.json --csv
echo "$out" >ab.csv
python3 - ab.csv a.json b.json <<'EOF'
import csv, json, sys
rows = list(csv.reader(open(sys.argv[1], newline='')))
a, b = (json.load(open(p)) for p in sys.argv[2:4])
head = rows[0]
assert all(len(r) == len(head) for r in rows), "ragged rows"
va = {m['name']: m['value'] for m in a['metrics']}
vb = {m['name']: m['value'] for m in b['metrics']}
ia, ib = head.index('a.json'), head.index('b.json')
metrics = [r for r in rows if r[1] == 'metric']
assert metrics and all(float(r[ia]) == va[r[2]] and float(r[ib]) == vb[r[2]] for r in metrics)
EOF
ok $? "csv: rectangular, and each metric's values are the documents'"

expect_exit 0 "compare --html" "$bp" compare a.json b.json --html
echo "$out" >ab.html
python3 - ab.html a.json <<'EOF'
import json, sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()   # well formed: every element closed, text escaped
assert root.tag == 'section' and root.get('class') == 'bp-compare'
names = [tr.find('td').text for tr in root.iter('tr') if tr.get('class') == 'metric']
assert names == [m['name'] for m in json.load(open(sys.argv[2]))['metrics']], names
EOF
ok $? "html: a well-formed <section>, a metric row per metric"

# --- parameters that differ are flagged in the table itself ------------------------------
expect_exit 0 "compare tcp -l 64 with -l 1400" "$bp" compare t64.json t1400.json --json
jq -e '.tests[0].test == "tcp" and ([.tests[0].params_differ[].name] == ["length"]) and
	.tests[0].params_differ[0].values == [64, 1400]' <<<"$out" >/dev/null
ok $? "the length is flagged, not the port (also different) or the server"
echo "$out" >tt.json
n=$(check_figures tt.json t64.json t1400.json) && [ "$n" -gt 0 ]
ok $? "every tcp figure and ratio is the documents' ($n rows)"
expect_exit 0 "the same as Markdown" "$bp" compare t64.json t1400.json --markdown
grep -q '^| param length | 64 | 1400 | \*\*differs\*\* |$' <<<"$out" &&
	grep -q '^Parameters differ (length): ' <<<"$out"
ok $? "markdown shows the differing length in the table and under it"

# --- a suite, test by test; tests only one run has are listed ---------------------------
jq -n --slurpfile a a.json --slurpfile t t64.json \
	'{schema: "boardperf/1", test: "run", params: {label: "suite"}, env: $a[0].env,
	  metrics: [], latency: {}, intervals: [], warnings: [], error: null,
	  results: [$a[0], $t[0]]}' >suite.json
expect_exit 0 "a suite against a cpu run" "$bp" compare suite.json b.json --json
jq -e '(.tests | map(.test)) == ["cpu"] and .not_compared == [{test: "tcp", run: 0}]' \
	<<<"$out" >/dev/null
ok $? "the suite's cpu compared with the cpu run, its tcp listed as not compared"
expect_exit 0 "... as text" "$bp" compare suite.json b.json
grep -q '^Not compared (in one run only): tcp (suite.json)\.$' <<<"$out"
ok $? "text names the test only the suite has"
expect_exit 0 "three runs" "$bp" compare a.json b.json a.json --json
jq -e '.runs[2].name == "a.json (2)" and (.tests[0].runs | length) == 3 and
	([.tests[0].metrics[].ratios[2]] | all(. == 1 or . == null))' <<<"$out" >/dev/null
ok $? "three runs: a third column, a name given twice made unique, ratio 1 to itself"

# --- errors -------------------------------------------------------------------------------
expect_exit 1 "a cpu run against a tcp run" "$bp" compare a.json t64.json
[ "$err" = "boardperf compare: error: no test that two of the runs have: 'a.json' ran cpu, 't64.json' ran tcp" ]
ok $? "refused, naming what each ran"
expect_exit 2 "one run" "$bp" compare a.json
grep -q "expected at least two runs" <<<"$err"; ok $? "says two runs are needed"
expect_exit 2 "two formats" "$bp" compare a.json b.json --markdown --csv
grep -q -- "--markdown and --csv exclude each other" <<<"$err"; ok $? "names both flags"
printf '{"schema": "boardperf/1", "test": ' >cut.json
expect_exit 1 "a cut JSON file" "$bp" compare a.json cut.json
[ "$(wc -l <<<"$err")" -eq 1 ] && grep -q "cut.json" <<<"$err"; ok $? "one line naming the file"
echo '{"hello": 1}' >other.json
expect_exit 1 "a JSON file that is no result" "$bp" compare a.json other.json
grep -q "other.json" <<<"$err"; ok $? "names the file: $err"
expect_exit 1 "a name that is nothing" "$bp" compare a.json opi --db "$tap_tmp/none.db"
[ "$(wc -l <<<"$err")" -eq 1 ] && grep -q "'opi'" <<<"$err" && grep -q "none.db" <<<"$err"
ok $? "one line naming the spec and the missing database"
[ ! -e "$tap_tmp/none.db" ]; ok $? "and creates no database"

# --- by id and by label, through the results database ------------------------------------
db=$tap_tmp/results.db
expect_exit 0 "cpu --label opi saved" "$bp" cpu --algo sha256 -t 0.2 --label opi --db "$db" --json
echo "$out" >opi1.json
expect_exit 0 "cpu --label rpi3 saved" "$bp" cpu --algo sha256 -t 0.2 --label rpi3 --db "$db" --json
echo "$out" >rpi3.json
expect_exit 0 "compare two labels" "$bp" compare opi rpi3 --db "$db" --json
echo "$out" >labels.json
n=$(check_figures labels.json opi1.json rpi3.json) &&
	jq -e '[.runs[].name] == ["opi", "rpi3"] and [.runs[].label] == ["opi", "rpi3"]' labels.json >/dev/null
ok $? "by label: the runs' own figures and ratios ($n rows), headed by the labels"
expect_exit 0 "compare two ids" "$bp" compare 1 2 --db "$db" --json
echo "$out" >ids.json
n=$(check_figures ids.json opi1.json rpi3.json) && jq -e '[.runs[].name] == ["#1", "#2"]' ids.json >/dev/null
ok $? "by id: the same figures ($n rows), headed #1 and #2"
expect_exit 0 "a second opi run" "$bp" cpu --algo sha256 -t 0.2 --label opi --db "$db" --json
echo "$out" >opi2.json
expect_exit 0 "a label, an id and a file" "$bp" compare opi 1 b.json --db "$db" --json
echo "$out" >mixed.json
jq -e --slurpfile o opi2.json --slurpfile p opi1.json '
	.tests[0].metrics[0].values[0:2] == [$o[0].metrics[0].value, $p[0].metrics[0].value]
	and [.runs[].name] == ["opi", "#1", "b.json"]' mixed.json >/dev/null
ok $? "a label is its newest run; an id and a file beside it"
expect_exit 0 "markdown by label" "$bp" compare opi rpi3 --db "$db" --markdown
grep -q '^| metric | opi | rpi3 | rpi3 vs opi |$' <<<"$out" && grep -q '^Runs: \*\*opi\*\* (cpu, ' <<<"$out"
ok $? "markdown headed by the labels"
expect_exit 1 "a label nothing has" "$bp" compare opi nosuch --db "$db"
[ "$(wc -l <<<"$err")" -eq 1 ] && grep -q "'nosuch'" <<<"$err"; ok $? "one line naming it: $err"
expect_exit 1 "an id nothing has" "$bp" compare opi 99 --db "$db"
grep -q "'99'" <<<"$err"; ok $? "one line naming it: $err"
before=$("$bp" history --db "$db" | wc -l)
expect_exit 0 "compare saves nothing" "$bp" compare opi rpi3 --db "$db"
[ "$("$bp" history --db "$db" | wc -l)" -eq "$before" ]; ok $? "history as before ($before lines)"

tap_done
