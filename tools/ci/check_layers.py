#!/usr/bin/env python3
"""The `layers` test: every #include under src/ keeps docs/ARCHITECTURE.md's layering rule.

The rule's one statement is the table in docs/ARCHITECTURE.md, "Layers": one row per
level (`| 4 | `server/` `rr/` ...: what sits there |`, the higher the number the higher the
level), each folder of src/ (and the top-level `main.c`) in exactly one row. A folder
includes only from its level or below, and folders of one level include each other without
a cycle. Speaks TAP; a "not ok" names

  - file:line, the include and both levels, for an include that goes up a level;
  - a file whose folder the table lacks, and a folder the table names that src/ lacks;
  - a cycle between folders, with one include that makes each of its steps. An include
    that goes up is named as such and left out of the search, so a cycle found is one
    within a level, and each fault is named once.

Includes are the `#include "..."` lines of src/**/*.c and *.h; one whose first part is not
a folder of src/ (bp_config.h, generated in the build directory) is not checked.
Usage: check_layers.py [ROOT] (default: the repository this script is in); --self-test
checks the checker against a clean tree and a planted one (one include up a level, one
cycle, one folder without a level).
"""
import os
import re
import sys
import tempfile

SELF = os.path.abspath(__file__)
DOC = os.path.join("docs", "ARCHITECTURE.md")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
ROW = re.compile(r"^\|\s*(\d+)\s*\|(.*)\|\s*$")
FOLDER = re.compile(r"`([a-z0-9_]+/|[a-z0-9_]+\.c)`")


def read_levels(root, problems):
    """{folder: level} from the first "| level |" table of the "Layers" section."""
    levels, in_section, in_table = {}, False, False
    with open(os.path.join(root, DOC)) as f:
        for n, line in enumerate(f, 1):
            if line.startswith("## "):
                if in_section:
                    break
                in_section = line.strip() == "## Layers"
                continue
            if not in_section:
                continue
            if line.startswith("| level |"):
                in_table = True
                continue
            m = ROW.match(line)
            if in_table and m:
                for name in FOLDER.findall(m.group(2).split(":")[0]):
                    name = name.rstrip("/")
                    if name in levels:
                        problems.append("%s:%d: `%s` is in two rows" % (DOC, n, name))
                    levels[name] = int(m.group(1))
            elif in_table and not line.startswith("|---"):
                break
    if not levels:
        problems.append('%s: no "| level |" table in its "Layers" section' % DOC)
    return levels


def folder_of(rel):
    """'src/io/pkt_tx.c' -> 'io'; 'src/main.c' -> 'main.c'."""
    parts = rel.split("/")
    return parts[1]


def sources(root):
    src = os.path.join(root, "src")
    for d, dirs, files in os.walk(src):
        dirs.sort()
        for name in sorted(files):
            if name.endswith((".c", ".h")):
                yield os.path.relpath(os.path.join(d, name), root).replace(os.sep, "/")


def find_cycle(graph, scc):
    """One cycle through the strongly connected folders scc, as a list that starts and ends
    with the same folder."""
    start = min(scc)
    path, seen = [start], {start}
    while True:
        nxt = sorted(t for t in graph[path[-1]] if t in scc)
        back = [t for t in nxt if t == start]
        if back or all(t in seen for t in nxt):
            target = start if back else next(t for t in nxt if t in seen)
            return path[path.index(target):] + [target]
        step = next(t for t in nxt if t not in seen)
        path.append(step)
        seen.add(step)


def cycles(graph):
    """Tarjan's strongly connected components of more than one folder."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(comp)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def check(root):
    """(problems, oks) for the tree at root."""
    problems, oks = [], []
    levels = read_levels(root, problems)
    src = os.path.join(root, "src")
    present = {e for e in os.listdir(src)
               if os.path.isdir(os.path.join(src, e)) or e.endswith((".c", ".h"))}
    for name in sorted(set(levels) - present):
        problems.append("%s: the table names `%s`, which src/ does not have" % (DOC, name))
    graph, example, files, includes, missing = {}, {}, 0, 0, set()
    for rel in sources(root):
        files += 1
        here = folder_of(rel)
        if here not in levels:
            if here not in missing:
                problems.append("%s: its folder `%s` has no level in %s's \"Layers\" table"
                                % (rel, here, DOC))
                missing.add(here)
            continue
        graph.setdefault(here, set())
        with open(os.path.join(root, rel), errors="replace") as f:
            for n, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m or "/" not in m.group(1):
                    continue
                there = m.group(1).split("/")[0]
                if there not in present or there == here:
                    continue
                includes += 1
                if there not in levels:
                    continue  # reported once, as a file of that folder
                if levels[there] > levels[here]:
                    problems.append('%s:%d: #include "%s" goes up a level: %s (level %d) '
                                    "includes %s (level %d)" % (rel, n, m.group(1), here,
                                                                levels[here], there,
                                                                levels[there]))
                    continue  # named here; the cycles are looked for among the rest
                graph[here].add(there)
                graph.setdefault(there, set())
                example.setdefault((here, there), '%s:%d includes "%s"' % (rel, n, m.group(1)))
    for comp in cycles(graph):
        cyc = find_cycle(graph, comp)
        steps = "; ".join(example[(a, b)] for a, b in zip(cyc, cyc[1:]))
        problems.append("a cycle between folders: %s (%s)" % (" -> ".join(cyc), steps))
    oks.append("%d includes between folders in %d files of %d folders checked against %d levels"
               % (includes, files, len(graph), len(set(levels.values()))))
    return problems, oks


def self_test():
    """The checker finds a planted upward include and a planted cycle, and passes a clean tree."""
    table = ("# x\n\n## Layers\n\n| level | folders |\n|---|---|\n"
             "| 1 | `high/`: above |\n| 0 | `low/` `side/`: below |\n\n## Next\n")
    good = {
        DOC: table,
        "src/high/h.c": '#include "low/l.h"\n#include "side/s.h"\n',
        "src/low/l.h": '#include "side/s.h"\n',
        "src/side/s.h": "#include <stdio.h>\n#include \"bp_config.h\"\n",
    }
    planted = dict(good, **{
        "src/low/l.c": '#include "low/l.h"\n\n#include "high/h.h"\n',
        "src/side/s.c": '#include "low/l.h"\n',
        "src/extra/e.c": '#include "low/l.h"\n',
    })
    results = []
    for files, want in ((good, []), (planted, [
            'src/low/l.c:3: #include "high/h.h" goes up a level: low (level 0) includes high (level 1)',
            'a cycle between folders: low -> side -> low (src/low/l.h:1 includes "side/s.h"; '
            'src/side/s.c:1 includes "low/l.h")',
            'src/extra/e.c: its folder `extra` has no level in docs/ARCHITECTURE.md\'s '
            '"Layers" table'])):
        with tempfile.TemporaryDirectory(prefix="bp-check-layers.") as d:
            for rel, body in files.items():
                p = os.path.join(d, rel)
                os.makedirs(os.path.dirname(p), exist_ok=True)
                with open(p, "w") as f:
                    f.write(body)
            problems, _ = check(d)
        if not want:
            results.append((not problems, "a clean tree passes (%s)"
                            % ("; ".join(problems) or "no problem")))
        else:
            results.append((sorted(problems) == sorted(want),
                            "a planted tree fails with exactly its upward include, its "
                            "cycle and its folder without a level (found: %s)" % (" | ".join(problems) or "nothing")))
    return results


def tap(lines):
    print("1..%d" % len(lines))
    for i, (good, what) in enumerate(lines, 1):
        print("%s %d - %s" % ("ok" if good else "not ok", i, what))
    return 0 if all(g for g, _ in lines) else 1


def main(argv):
    results = self_test()
    if argv[1:2] == ["--self-test"]:
        return tap(results)
    root = os.path.abspath(argv[1] if len(argv) > 1 else
                           os.path.join(os.path.dirname(SELF), "..", ".."))
    problems, oks = check(root)
    return tap([(True, w) for w in oks] + [(False, p) for p in problems] + results)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
