#!/usr/bin/env bash
# boardperf report in a real browser: short real runs to JSON (tcp twice against
# boardperf serve on loopback with 0.2 s intervals, rr, cpu --threads 2, disk in a temporary
# folder, rfc2544), `report` draws them into one page, and headless Chromium (Debian's
# chromium) loads it: no console error (a control page with an error proves the check sees
# one), a screenshot that is not blank and shows the series' colours, and every chart's
# points in the DOM Chromium built equal the documents' values (jq on the JSON against the
# data-x/data-y attributes). The page has no network reference. Then the command's errors.
# Usage: test_report.sh BOARDPERF
set -u
bp=$(realpath "$1")
. "$(dirname "$0")/tap.sh"

bp_ports 1; port=$BP_PORT  # tap.sh
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; }
trap 'cleanup; rm -rf "$tap_tmp"' EXIT
d=$tap_tmp
# tap.sh points XDG_DATA_HOME into the test's folder: every run below is saved there, and
# report finds ids and labels in that database, never the user's

slog="$d/serve.log"
"$bp" serve -B 127.0.0.1 -p "$port" 2>"$slog" &
pids+=($!)
wait_log "$slog" listening; ok $? "server listens on 127.0.0.1:$port"

# --- real runs, each a document ---
run_json() { # run_json FILE WHAT ARGS...: a run's --json into FILE, exit 0 and a result
	local f=$1 what=$2
	shift 2
	"$bp" "$@" --json >"$d/$f" 2>"$d/$f.err"
	jq -e '.schema == "boardperf/1" and .error == null' "$d/$f" >/dev/null
	ok $? "$what ran ($f)"
}
run_json tcp1.json "tcp -i 0.2" tcp -c 127.0.0.1 -p "$port" -t 1 -i 0.2 --label opi-zero
run_json tcp2.json "tcp -i 0.2 -P 2" tcp -c 127.0.0.1 -p "$port" -t 0.6 -i 0.2 -P 2 \
	--label rpi3
run_json rr.json "rr -i 0.2" rr -c 127.0.0.1 -p "$port" -t 0.6 -i 0.2
run_json rfc.json "rfc2544" rfc2544 -c 127.0.0.1 -p "$port" --sizes 64,1518 --trial 0.2 \
	--max 100M --resolution 20
run_json cpu.json "cpu --threads 2" cpu --algo sha256,rsa2048 --sizes 16 -t 0.1 --threads 2
mkdir -p "$d/disk"
run_json disk.json "disk" disk --dir "$d/disk" --size 8M --files 2 -t 0.6 -i 0.2
[ "$(jq '.intervals | length' "$d/tcp1.json")" -ge 4 ]
ok $? "tcp's 0.2 s intervals are in its document ($(jq '.intervals | length' "$d/tcp1.json"))"

# --- the page ---
docs=(tcp1.json tcp2.json rr.json rfc.json cpu.json disk.json)
(cd "$d" && "$bp" report "${docs[@]}" --html "$d/page.html" 2>"$d/report.err")
ok $? "report writes the page ($(wc -c <"$d/page.html" 2>/dev/null) bytes)"
grep -q "wrote $d/page.html (6 runs)" "$d/report.err"; ok $? "report says where it wrote"
urls=$(grep -oE '(https?:)?//[^"'"'"' <>)]*' "$d/page.html" | grep -vx 'http://www.w3.org/2000/svg')
[ -s "$d/page.html" ] && [ -z "$urls" ] && ! grep -qiE '<script|<link|<img|<iframe|url\(' "$d/page.html"
ok $? "no network reference in the page but the SVG namespace (found: ${urls:-none})"
charts=$(grep -o '<svg ' "$d/page.html" | wc -l)
[ "$charts" -ge 15 ]; ok $? "the page holds the charts ($charts)"

# The points of each chart, from an HTML document: "chart<TAB>series<TAB>x<TAB>y" lines.
cat >"$d/points.py" <<'PY'
import html.parser, sys
class P(html.parser.HTMLParser):
    chart = None
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "svg" and "chart" in (a.get("class") or "").split():
            self.chart = a.get("data-chart")
        elif tag in ("circle", "rect") and a.get("class") in ("point", "bar") and self.chart:
            print("\t".join([self.chart, a["data-series"], a["data-x"], a["data-y"]]))
    def handle_endtag(self, tag):
        if tag == "svg":
            self.chart = None
P().feed(open(sys.argv[1], encoding="utf-8").read())
PY

# Expected points: for each document and chart, jq's [x, y] pairs.
# The series is the run's name in the page: its label, else the file's name.
expect() { # expect CHART FILE JQ-PAIRS [SERIES]
	local s=${4:-$(jq -r --arg f "$2" 'if (.params.label // "") == "" then $f else .params.label end' "$d/$2")}
	jq -r --arg c "$1" --arg s "$s" "$3 | select(.[1] != null) | [\$c, \$s, (.[0]|tostring), (.[1]|tostring)] | @tsv" "$d/$2"
}
{
	for f in tcp1.json tcp2.json; do
		for m in sender.bitrate receiver.bitrate rtt; do
			expect "tcp.interval.$m" $f ".intervals[] | [.end, .metrics[\"$m\"]]"
		done
	done
	expect rr.interval.transactions.rate rr.json '.intervals[] | [.end, .metrics["transactions.rate"]]'
	for p in p50:50 p90:90 p99:99 p99.9:99.9 p99.99:99.99; do
		expect rr.latency.transaction rr.json "[${p#*:}, .latency.transaction[\"${p%%:*}\"]]"
		for w in read write fsync; do
			expect "disk.latency.$w" disk.json "[${p#*:}, .latency.$w[\"${p%%:*}\"]]"
		done
	done
	for m in reads.rate writes.rate read.bandwidth; do
		expect "disk.interval.$m" disk.json ".intervals[] | [.end, .metrics[\"$m\"]]"
	done
	for s in 64 1518; do
		expect rfc2544.zero_loss.fps rfc.json "[\"$s B\", (.metrics[] | select(.name == \"frame$s.zero_loss.fps\") | .value)]"
	done
	# every item measured on both workers too: its line by threads, its scaling bar
	for i in $(jq -r '.metrics[].name | select(endswith(".all")) | rtrimstr(".all")' "$d/cpu.json"); do
		expect "cpu.threads.$i" cpu.json "[1, (.metrics[] | select(.name == \"$i\") | .value)],
			[.params.workers, (.metrics[] | select(.name == \"$i.all\") | .value)]"
	done
	expect cpu.scaling cpu.json '.metrics[] | select(.name | endswith(".scaling"))
		| [(.name | rtrimstr(".scaling")), .value]'
} | sort >"$d/want.tsv"
checked_charts=$(cut -f1 "$d/want.tsv" | sort -u | tr '\n' ' ')

# want.tsv against the points of a document: each chart the same points, no more, no less,
# as doubles to 1e-12 of the value: the page prints 17 digits, jq its own shortest form, and
# a stored document keeps digits that --json's 15 leave out.
cat >"$d/same.py" <<'PY'
import sys
def load(path, charts):
    out = {}
    for line in open(path, encoding="utf-8"):
        c, s, x, y = line.rstrip("\n").split("\t")
        if c in charts:
            try: x = float(x)
            except ValueError: pass
            out.setdefault(c, []).append((s, x, float(y)))
    return {c: sorted(v, key=lambda p: (p[0], str(type(p[1])), p[1])) for c, v in out.items()}
charts = set(sys.argv[3].split())
want, got = load(sys.argv[1], charts), load(sys.argv[2], charts)
def same(a, b):
    if a is None or b is None or len(a) != len(b):
        return False
    close = lambda u, v: u == v or (isinstance(u, float) and isinstance(v, float)
                                    and abs(u - v) <= 1e-12 * max(abs(u), abs(v)))
    return all(p[0] == q[0] and close(p[1], q[1]) and close(p[2], q[2]) for p, q in zip(a, b))
bad = [c for c in sorted(charts) if not same(want.get(c), got.get(c))]
for c in bad:
    print("#   %s: want %s" % (c, want.get(c)))
    print("#   %s: got  %s" % (c, got.get(c)))
print("# %d charts, %d points compared" % (len(charts), sum(len(v) for v in want.values())))
sys.exit(1 if bad or not want else 0)
PY
python3 "$d/points.py" "$d/page.html" >"$d/page.tsv"
python3 "$d/same.py" "$d/want.tsv" "$d/page.tsv" "$checked_charts"
ok $? "the page's points are the documents' values ($(wc -l <"$d/want.tsv") points)"

# --- in Chromium ---
chrome=$(command -v chromium || true)
if [ -z "$chrome" ]; then
	for what in "Chromium loads the page without a console error" \
		"the screenshot is not blank" "the DOM's points are the documents' values"; do
		skip "$what" "chromium is not installed (Debian package chromium)"
	done
else
	browse() { # browse OUT ERR ARGS... URL: headless Chromium, bounded in time
		local out=$1 errf=$2
		shift 2
		# Nothing off this machine: Chromium's own background traffic (component updates,
		# variations, safe browsing) off, every host name unresolvable, and any address
		# literal sent to a closed loopback port; the page is a file:// one and needs none.
		# port-ok: 9 (discard) is privileged, nothing listens: the browser reaches nothing
		timeout 90 "$chrome" --headless --no-sandbox --disable-gpu --no-first-run \
			--disable-background-networking --disable-component-update --disable-sync \
			--disable-domain-reliability --no-pings --host-resolver-rules='MAP * ~NOTFOUND' \
			--proxy-server=http://127.0.0.1:9 \
			--user-data-dir="$d/chrome" --enable-logging=stderr --v=0 "$@" \
			>"$out" 2>"$errf"
	}
	printf '<!DOCTYPE html><p>control</p><script>console.error("bp-control")</script>\n' \
		>"$d/control.html"
	browse "$d/control.dom" "$d/control.log" --dump-dom "file://$d/control.html"
	grep -q 'CONSOLE.*"bp-control"' "$d/control.log"
	ok $? "the console check sees an error on a control page"

	browse "$d/dom.html" "$d/dom.log" --dump-dom "file://$d/page.html"
	ok $? "Chromium dumps the page's DOM"
	! grep -E 'CONSOLE|Failed to load|net::ERR' "$d/dom.log" | grep -q .
	ok $? "Chromium loads the page without a console error"
	grep -E 'CONSOLE|Failed to load|net::ERR' "$d/dom.log" | head -n 5 | sed 's/^/#   /'
	n=$(grep -o '<svg ' "$d/dom.html" | wc -l)
	[ "$n" -eq "$charts" ]; ok $? "Chromium's DOM has every chart ($n of $charts)"
	python3 "$d/points.py" "$d/dom.html" >"$d/dom.tsv"
	python3 "$d/same.py" "$d/want.tsv" "$d/dom.tsv" "$checked_charts"
	ok $? "the DOM's points are the documents' values (charts: $checked_charts)"
	[ "$(wc -l <"$d/dom.tsv")" -eq "$(wc -l <"$d/page.tsv")" ]
	ok $? "the DOM holds every point and bar of the page ($(wc -l <"$d/dom.tsv"))"

	browse "$d/shot.out" "$d/shot.log" --screenshot="$d/shot.png" --window-size=1100,2400 \
		--hide-scrollbars "file://$d/page.html"
	[ -s "$d/shot.png" ]; ok $? "Chromium renders the page to a PNG"
	# The PNG decoded with the standard library (zlib, the five row filters): the share of
	# pixels that are not the white background, and of the first two series' colours.
	cat >"$d/png.py" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat = 8, b""
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
assert depth == 8 and ctype in (2, 6), "unexpected PNG format"
bpp = 3 if ctype == 2 else 4
raw, stride = zlib.decompress(idat), w * bpp
prev, rows, i = bytearray(stride), [], 0
for _ in range(h):
    f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride]); i += 1 + stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b, c = prev[x], prev[x - bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(line); prev = line
def near(px, rgb): return all(abs(px[k] - rgb[k]) <= 12 for k in range(3))
ink = blue = orange = 0
for line in rows:
    for x in range(0, stride, bpp):
        px = line[x:x + 3]
        if tuple(px) != (255, 255, 255): ink += 1
        if near(px, (0, 114, 178)): blue += 1
        if near(px, (230, 159, 0)): orange += 1
print("%dx%d %d %d %d" % (w, h, ink, blue, orange))
PY
	read -r size ink blue orange < <(python3 "$d/png.py" "$d/shot.png" 2>/dev/null || echo "? 0 0 0")
	total=$((1100 * 2400))
	[ "$ink" -gt $((total / 50)) ]
	ok $? "the screenshot is not blank ($size: $ink pixels not background, of $total)"
	[ "$blue" -gt 200 ] && [ "$orange" -gt 200 ]
	ok $? "the screenshot shows two runs' series in their colours ($blue blue, $orange orange pixels)"
fi

# --- runs from the results database: labels and an id ---
expect_exit 0 "report of two labels from the database" "$bp" report opi-zero rpi3 \
	--html "$d/stored.html"
rr_id=$("$bp" history --test rr --json | jq '.[0].id')
expect_exit 0 "report of an id (#$rr_id)" "$bp" report "$rr_id" --html "$d/id.html"
{
	for f in tcp1.json tcp2.json; do
		for m in sender.bitrate receiver.bitrate rtt; do
			expect "tcp.interval.$m" $f ".intervals[] | [.end, .metrics[\"$m\"]]"
		done
	done
} | sort >"$d/want_stored.tsv"
python3 "$d/points.py" "$d/stored.html" >"$d/stored.tsv"
python3 "$d/same.py" "$d/want_stored.tsv" "$d/stored.tsv" \
	"tcp.interval.sender.bitrate tcp.interval.receiver.bitrate tcp.interval.rtt"
ok $? "the labels' stored runs are drawn with the files' values, named by label"
grep -q '<th>opi-zero</th><th>rpi3</th>' "$d/stored.html"
ok $? "the comparison table has a column per label"
for p in p50:50 p90:90 p99:99 p99.9:99.9 p99.99:99.99; do
	expect rr.latency.transaction rr.json "[${p#*:}, .latency.transaction[\"${p%%:*}\"]]" "#$rr_id"
done | sort >"$d/want_id.tsv"
python3 "$d/points.py" "$d/id.html" >"$d/id.tsv"
python3 "$d/same.py" "$d/want_id.tsv" "$d/id.tsv" rr.latency.transaction
ok $? "the id's stored run is drawn as #$rr_id with rr.json's percentiles"
expect_exit 1 "report with a --db that is not there" "$bp" report opi-zero --db "$d/none.db" \
	--html "$d/x.html"
grep -q "none.db" <<<"$err"; ok $? "it names the database ($err)"

# --- errors ---
expect_exit 2 "report without a run" "$bp" report --html "$d/x.html"
grep -q "expected at least one run" <<<"$err"; ok $? "it says a run is expected"
expect_exit 2 "report without --html" "$bp" report "$d/tcp1.json"
grep -q -- "--html FILE is required" <<<"$err"; ok $? "it says --html is required"
expect_exit 1 "report of a file that is not there" "$bp" report "$d/nope.json" --html "$d/x.html"
grep -q "nope.json" <<<"$err"; ok $? "it names the run ($err)"
expect_exit 1 "report of an id without a database" "$bp" report 12 --html "$d/x.html"
grep -q "'12'" <<<"$err"; ok $? "it names the id ($err)"
echo '{"schema": "boardperf/1"}' >"$d/notdoc.json"
expect_exit 1 "report of a document that is not a result" "$bp" report "$d/notdoc.json" \
	--html "$d/x.html"
[ ! -e "$d/x.html" ]; ok $? "no page is left after a refusal"
expect_exit 1 "report into a folder that is not there" "$bp" report "$d/tcp1.json" \
	--html "$d/no/such/page.html"
grep -q "no/such/page.html" <<<"$err"; ok $? "it names the file ($err)"
expect_exit 0 "report --html - writes to standard output" "$bp" report "$d/rr.json" --html -
grep -q 'data-chart="rr.latency.transaction"' <<<"$out"; ok $? "the page is on standard output"
ls "$d"/*.tmp.* >/dev/null 2>&1; [ $? -ne 0 ]; ok $? "no temporary file left beside the pages"

tap_done
