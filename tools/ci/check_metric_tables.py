#!/usr/bin/env python3
"""The `metric_tables` test: the manual's metric tables name only what the kinds declare.

A table in docs/ whose first column is headed `metric` lists figures a test emits; each
backticked name in that column (`receiver.bitrate`, `latency.<size>`: a <placeholder> is one
name part) must be one `boardperf metrics --json` lists (a catalogue's `*` part matching any
one part), or its `up.`/`down.` form where the catalogue says --bidir emits one. A name
renamed or dropped in the code, and not in the manual, fails here with file:line. Speaks
TAP. Usage: check_metric_tables.py BOARDPERF [ROOT]; --self-test BOARDPERF plants a table
row of a figure no kind has and expects it to fail.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

TOKEN = re.compile(r"`([^`]+)`")
NAME = re.compile(r"[a-z0-9_*<>][a-z0-9_*<>.-]*")


def catalogue(boardperf):
    out = subprocess.run([boardperf, "metrics", "--json"], check=True, capture_output=True,
                         text=True).stdout
    rows = json.loads(out)
    names = [r["name"] for r in rows]
    names += [d + r["name"] for r in rows if r.get("bidir") for d in ("up.", "down.")]
    return names


def matches(declared, name):
    """A part "*" of either matches any one part; but a declared name of "*" parts only
    (cpu's "*.*") stands for nothing the manual could misspell: it matches names written
    with placeholders only."""
    a, b = declared.split("."), name.split(".")
    if all(x == "*" for x in a) and any(y != "*" for y in b):
        return False
    return len(a) == len(b) and all(x == "*" or y == "*" or x == y for x, y in zip(a, b))


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def faults(root, names, seen=None):
    """(file:line, name) of every metric-table name no kind declares; seen: a list that gets
    every name checked."""
    found = []
    docs = os.path.join(root, "docs")
    for page in sorted(os.listdir(docs)):
        if not page.endswith(".md"):
            continue
        in_table = False
        path = os.path.join(docs, page)
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
        for i, line in enumerate(lines):
            if not line.startswith("|"):
                in_table = False
                continue
            if not in_table:
                # a table starts: its header row, then the |---| row
                in_table = cells(line)[0] == "metric" and i + 1 < len(lines) and \
                    lines[i + 1].startswith("|-")
                continue
            if line.startswith("|-"):
                continue
            for tok in TOKEN.findall(cells(line)[0]):
                if not NAME.fullmatch(tok):
                    continue
                name = re.sub(r"<[^>]+>", "*", tok)
                if seen is not None:
                    seen.append(tok)
                if not any(matches(d, name) for d in names):
                    found.append(("docs/%s:%d" % (page, i + 1), tok))
    return found


def report(root, names):
    seen = []
    bad = faults(root, names, seen)
    print("1..1")
    if bad:
        print("not ok 1 - metric tables name figures no kind declares: " +
              ", ".join("%s `%s`" % b for b in bad))
        return 1
    print("ok 1 - the %d names in docs/'s metric tables are all in `boardperf metrics`" %
          len(seen))
    return 0


def self_test(names):
    with tempfile.TemporaryDirectory() as root:
        os.mkdir(os.path.join(root, "docs"))
        with open(os.path.join(root, "docs", "x.md"), "w", encoding="utf-8") as f:
            f.write("| metric | meaning |\n|---|---|\n| `receiver.bitrate`, `latency.<size>` "
                    "| fine |\n| `receiver.bogus` | planted |\n\n| figure | what |\n|---|---|\n"
                    "| `not.a.metric.table` | another table |\n")
        bad = faults(root, names)
        return bad == [("docs/x.md:4", "receiver.bogus")]


def main(argv):
    if len(argv) >= 3 and argv[1] == "--self-test":
        names = catalogue(argv[2])
        ok = self_test(names)
        print("1..1\n%s 1 - the check finds a planted name" % ("ok" if ok else "not ok"))
        return 0 if ok else 1
    if len(argv) < 2:
        print("usage: check_metric_tables.py BOARDPERF [ROOT]", file=sys.stderr)
        return 2
    names = catalogue(argv[1])
    root = argv[2] if len(argv) > 2 else os.path.dirname(os.path.dirname(
        os.path.dirname(os.path.abspath(__file__))))
    if not self_test(names):
        print("1..1\nnot ok 1 - the check missed a planted name (or flagged a good one)")
        return 1
    return report(root, names)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
