#!/usr/bin/env python3
"""The `docs` test: citations of the documents hold, and the documents keep their size.

Source comments, tests, tools and the documents themselves cite the manual by file and
section heading: `docs/json.md, "The monitor"`, `(docs/server.md, "Limits and their
defaults")`, a Markdown link `[...](results.md#comparing-boards-compare)`. Speaks TAP; a
"not ok" names file:line for

  - a cited document that does not exist: any `PATH.md` in a source, test, tool or bench
    file (resolved from the repository's root, else from the citing file's folder), and a
    Markdown link's target in a .md file (from the file's folder, as GitHub resolves it);
  - a cited section that the document does not have: the quoted text after a document
    (`DOC, "HEADING"`, `DOC: "HEADING"`, `DOC ("HEADING")`, `DOC "HEADING"`, `DOC's
    "HEADING"`; a bare `README` counts as README.md) must be one of its headings, compared
    without backticks and with blanks collapsed; a short form that leaves out a trailing
    parenthesis or the part after a colon holds too ("Comparing boards" for "Comparing
    boards (`compare`)", "The monitor" for "The monitor: `throttled`, ...");
  - a Markdown link's `#anchor` that is no heading's anchor in its target (GitHub's rule:
    lower case, punctuation dropped, blanks to hyphens, -1, -2 ... for repeats);
  - README.md over 400 lines, or a page of docs/ over 500 (CAP_CEILING holds a page that was
    already over when the cap came to a ceiling: it may shrink, never grow).

The quoted section may run over a line break of a comment (` * `, `# `, `// ` leaders).
A citation inside a URL, or a path built from a variable ($dir/README.md), is not one.
Usage: check_docs.py [ROOT] (default: the repository this script is in); --self-test
checks the checker against a small tree with a planted fault of each kind.
"""
import os
import re
import sys
import shutil
import tempfile

README_CAP = 400
DOCS_CAP = 500
# Pages over DOCS_CAP when the cap came (issue 30), with the lines they had then: each may
# shrink, never grow; trim it below DOCS_CAP and drop it from here.
CAP_CEILING = {}

SCAN_DIRS = ["src", "tests", "tools", "bench", "docs", ".ci"]
SCAN_FILES = ["README.md", "Makefile", "meson.build"]
SKIP_DIRS = {"tests/fuzz/corpus", "tests/unit/fixtures", "tests/unit/golden"}
TEXT_EXT = {".c", ".h", ".sh", ".py", ".md", ".build", ".service", ".in", ".txt", ".yml",
            ".yaml", ""}
SELF = os.path.abspath(__file__)

# A document: a path ending in .md, not glued to a variable, a path, a word or a quote before
# it (a file name in code: "compare.md"), and not followed by more of a name (README.md.gz);
# or the bare word README.
DOC = re.compile(r"(?<![\w/.$}{\"'-])((?:[\w.-]+/)*[\w.-]+\.md)(?![\w-]|\.\w)|(?<![\w/.$-])(README)(?![\w.-])")
# What may follow a document before its quoted section.
SECTION = re.compile(r"""^(?:'s)?(?:[,:]\s*|\s+)\(?\s*"([^"\n]{1,160})\"""")
COMMENT_BREAK = re.compile(r"\s*\n\s*(?:\*(?!/)|#|//)?\s*")
URL = re.compile(r"\b(?:https?|ftp|file)://\S+")
MD_LINK = re.compile(r"\[[^\]\n]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")


def norm(text):
    return " ".join(text.replace("`", "").split())


def headings(path, cache={}):
    """The headings of a Markdown file (outside code fences), as written, in order."""
    if path not in cache:
        out, fenced = [], False
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                if FENCE.match(line):
                    fenced = not fenced
                    continue
                m = None if fenced else HEADING.match(line.rstrip("\n"))
                if m:
                    out.append(m.group(2))
        cache[path] = out
    return cache[path]


def slug(text):
    """GitHub's anchor for a heading."""
    s = text.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def anchors(path):
    seen, out = {}, set()
    for h in headings(path):
        base = slug(h)
        n = seen.get(base, 0)
        out.add(base if n == 0 else "%s-%d" % (base, n))
        seen[base] = n + 1
    return out


def section_holds(cited, heads):
    c = norm(cited)
    if c.endswith("..."):  # an abbreviation ("The monitor: ..."): its words before the dots
        c = c[:-3].rstrip(" :,")
    for h in map(norm, heads):
        if h == c or h.startswith(c + " (") or h.startswith(c + ": ") or h.startswith(c + ":"):
            return True
    return False


def scanned_files(root):
    for name in SCAN_FILES:
        p = os.path.join(root, name)
        if os.path.isfile(p):
            yield p
    for d in SCAN_DIRS:
        top = os.path.join(root, d)
        for dirpath, dirnames, filenames in os.walk(top):
            rel = os.path.relpath(dirpath, root)
            dirnames[:] = sorted(x for x in dirnames
                                 if os.path.join(rel, x) not in SKIP_DIRS and not x.startswith("."))
            for fn in sorted(filenames):
                p = os.path.join(dirpath, fn)
                if os.path.splitext(fn)[1] in TEXT_EXT and os.path.abspath(p) != SELF:
                    yield p


def resolve(root, citing, doc):
    if doc == "README":
        doc = "README.md"
    for base in (root, os.path.dirname(citing)):
        p = os.path.normpath(os.path.join(base, doc))
        if os.path.isfile(p):
            return p
    return None


def check_file(root, path, problems, counts):
    rel = os.path.relpath(path, root)
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (UnicodeDecodeError, OSError):
        return
    is_md = path.endswith(".md")
    # Offsets of line starts, for line numbers; URLs blanked out (same length).
    text = URL.sub(lambda m: " " * len(m.group(0)), text)
    starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]

    def line_of(pos):
        lo, hi = 0, len(starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if starts[mid] <= pos:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1

    # Code fences of a .md: a link or a citation in an example is not one.
    fenced = set()
    if is_md:
        inside = False
        for n, line in enumerate(text.split("\n"), 1):
            if FENCE.match(line):
                inside = not inside
                fenced.add(n)
            elif inside:
                fenced.add(n)

    for m in DOC.finditer(text):
        doc = m.group(1) or m.group(2)
        line = line_of(m.start())
        if line in fenced:
            continue
        after = COMMENT_BREAK.sub(" ", text[m.end():m.end() + 240])
        sm = SECTION.match(after)
        if is_md and not sm:
            continue  # a .md names files in prose and tables; its links are checked below
        if doc == "README" and not sm:
            continue  # "iperf3's README": only a bare README with a quoted section cites ours
        target = resolve(root, path, doc)
        counts["citations"] += 1
        if not target:
            problems.append("%s:%d: cites %s, which does not exist" % (rel, line, doc))
            continue
        if sm and target.endswith(".md"):
            cited = sm.group(1)
            if not section_holds(cited, headings(target)):
                problems.append('%s:%d: cites %s, "%s": no such heading there'
                                % (rel, line, os.path.relpath(target, root), cited))

    if is_md:
        for m in MD_LINK.finditer(text):
            line = line_of(m.start())
            if line in fenced:
                continue
            target = m.group(1)
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                continue  # mailto:, a scheme the URL blanking missed
            counts["links"] += 1
            file_part, _, anchor = target.partition("#")
            tpath = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
            if not os.path.exists(tpath):
                problems.append("%s:%d: links to %s, which does not exist" % (rel, line, file_part))
                continue
            if anchor and tpath.endswith(".md") and anchor not in anchors(tpath):
                problems.append("%s:%d: links to %s#%s: no such heading there"
                                % (rel, line, os.path.relpath(tpath, root), anchor))


def sizes(root):
    out = []
    readme = os.path.join(root, "README.md")
    if os.path.isfile(readme):
        out.append(("README.md", readme, README_CAP))
    docs = os.path.join(root, "docs")
    if os.path.isdir(docs):
        for fn in sorted(os.listdir(docs)):
            if fn.endswith(".md"):
                rel = "docs/" + fn
                out.append((rel, os.path.join(docs, fn), CAP_CEILING.get(rel, DOCS_CAP)))
    return out


def check(root):
    """(problems, summary lines) for the tree at ROOT."""
    problems, oks = [], []
    for rel, path, cap in sizes(root):
        with open(path, encoding="utf-8", errors="replace") as f:
            n = sum(1 for _ in f)
        what = "%s: %d lines (at most %d%s)" % (rel, n, cap,
                                                 ", a ceiling over the cap" if cap > DOCS_CAP else "")
        (problems if n > cap else oks).append(what if n <= cap else
                                              "%s: %d lines, over its cap of %d" % (rel, n, cap))
    counts = {"citations": 0, "links": 0}
    for path in scanned_files(root):
        check_file(root, path, problems, counts)
    oks.append("%d citations of documents and %d Markdown links checked"
               % (counts["citations"], counts["links"]))
    return problems, oks


def self_test():
    """The checker finds each kind of fault in a small tree, and passes a clean one."""
    made = []

    def tree(files):
        d = tempfile.mkdtemp(prefix="bp-check-docs.")
        made.append(d)
        for rel, body in files.items():
            p = os.path.join(d, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w") as f:
                f.write(body)
        return d

    page = "# Page\n\n## `boardperf tcp`\n\n## The monitor: `hot`, `busy`\n\n## CSV (`--csv`)\n"
    good = {
        "README.md": "# x\n\nSee [the page](docs/page.md#the-monitor-hot-busy).\n",
        "docs/page.md": page,
        "src/a.c": '/* docs/page.md, "boardperf tcp"; (docs/page.md, "The\n * monitor") */\n'
                   '/* docs/page.md ("CSV"); gzip "$here/README.md" >"$d/README.md.gz"; iperf3\'s README: x */\n',
    }
    faults = {
        "src/b.c": ('/* docs/gone.md */\n', "does not exist"),
        "src/c.c": ('/* docs/page.md, "No such heading" */\n', "no such heading"),
        "src/d.sh": ('# README, "The monitor"\n', "no such heading"),
        "docs/e.md": ("[x](page.md#no-anchor)\n", "no such heading"),
        "docs/f.md": ("[x](../nowhere.md)\n", "does not exist"),
    }
    try:
        return self_test_trees(tree, good, faults)
    finally:
        for d in made:
            shutil.rmtree(d, ignore_errors=True)


def self_test_trees(tree, good, faults):
    """Each tree checked: the clean one, one per planted fault, an overlong README."""
    results = []
    d = tree(good)
    problems, _ = check(d)
    results.append((not problems, "a clean tree passes (%s)" % ("; ".join(problems) or "no problem")))
    for rel, (body, expect) in faults.items():
        d = tree(dict(good, **{rel: body}))
        problems, _ = check(d)
        hit = [p for p in problems if p.startswith(rel + ":1:") and expect in p]
        results.append((len(problems) == 1 and hit, "a planted fault in %s is found (%s)"
                        % (rel, "; ".join(problems) or "none found")))
    d = tree(dict(good, **{"README.md": "x\n" * (README_CAP + 1)}))
    problems, _ = check(d)
    results.append((any("README.md: %d lines, over" % (README_CAP + 1) in p for p in problems),
                    "a README over %d lines fails" % README_CAP))
    return results


def main(argv):
    if argv[1:2] == ["--self-test"]:
        results = self_test()
        print("1..%d" % len(results))
        for i, (good, what) in enumerate(results, 1):
            print("%s %d - %s" % ("ok" if good else "not ok", i, what))
        return 0 if all(g for g, _ in results) else 1
    root = os.path.abspath(argv[1] if len(argv) > 1 else
                           os.path.join(os.path.dirname(SELF), "..", ".."))
    results = [(bool(g), w) for g, w in self_test()]
    problems, oks = check(root)
    lines = [(True, w) for w in oks] + [(False, p) for p in problems] + results
    print("1..%d" % len(lines))
    for i, (good, what) in enumerate(lines, 1):
        print("%s %d - %s" % ("ok" if good else "not ok", i, what))
    return 0 if all(g for g, _ in lines) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
