#!/usr/bin/env python3
"""The `isolation` test: integration scripts run side by side (meson's is_parallel, and two
CI runs on one machine), so nothing one of them takes may be taken by another by chance.
Scans tests/integration/*.sh, *.py and tests/rig/rig.sh and speaks TAP: "not ok" names
file:line for

  - $$ (or $RANDOM) picking a port, $$ in arithmetic: ports come from bp_ports (tap.sh);
  - a literal port (-p/--port/--http/--metrics N, rig_wait_port ROLE N, port=N, 127.0.0.1:N,
    /dev/tcp/HOST/N, ("127.0.0.1", N), a stock server's default: iperf3 -s / iperf -s /
    sockperf server without -p), but port 0 (the kernel's choice);
  - `ip netns add` of a name that does not carry $BP_RUN (followed through variables);
  - a fixed path under /tmp, /var/tmp, /dev/shm, /run or /sys/fs/cgroup, a mktemp whose
    template lacks $BP_RUN;
  - nft run in the host's namespace (tables belong in the test's own namespaces);
  - a test's own `trap ... EXIT` (it replaces tap.sh's, which removed $tap_tmp) whose command,
    or the function it names, does not remove $tap_tmp: each run would leave its folder;
  - in meson.build, a serial test without a lane (solo, lane_a, ...) or a lane's test that
    is not serial (tools/ci/test.sh runs the serial tests lane by lane).

A command may be let through by a comment "# port-ok: WHY" (a literal port that no other test
can meet: inside a namespace of the test's own, a refused usage error, a privileged port nothing
listens on) or "# isolation-ok: WHY" (anything else), the reason required, at the end of one of
its lines or on a comment line right above it.
Usage: check_isolation.py DIR... (default: this script's folder and ../rig/rig.sh).
"""
import glob
import os
import re
import sys

ALLOW_PORT = re.compile(r"#\s*port-ok:\s*\S")
ALLOW_ANY = re.compile(r"#\s*isolation-ok:\s*\S")

PORT_LITERALS = [
    (re.compile(r"(?:^|[\s\"'(])(?:-p|--port|--http|--http-port|--metrics)[ =]+"
                r"(?:[\w.\[\]:-]*:)?(\d+)\b(?![.\w])"), "a literal port after an option"),
    (re.compile(r"\brig_wait_port\s+\S+\s+(\d+)\b"), "a literal port waited for"),
    (re.compile(r"\b\w*port\w*=(\d+)\b"), "a port set to a literal"),
    (re.compile(r"(?:127\.\d+\.\d+\.\d+|localhost|\[::1\]):(\d+)\b"), "a literal loopback port"),
    (re.compile(r"/dev/(?:tcp|udp)/[^/\s]+/(\d+)\b"), "a literal port in /dev/tcp"),
    (re.compile(r"\(\s*[\"']127\.0\.0\.1[\"']\s*,\s*(\d+)\s*\)"), "a literal port in a socket address"),
]
STOCK_SERVERS = re.compile(r"(?:^|[\s;&|(])(?:iperf3?\s+(?:[^|;&]*\s)?-s\b|sockperf\s+server\b)")
DOLLARS_ARITH = re.compile(r"\$\(\([^)]*\$\$")
PORT_WORD = re.compile(r"port", re.I)
RANDOM_PORT = re.compile(r"\b\w*port\w*=.*\bRANDOM\b")
NETNS_ADD = re.compile(r"\bip\s+netns\s+add\s+(\S+)")
FIXED_PATH = re.compile(r"(?<![\w}$-])(/tmp|/var/tmp|/dev/shm|/run|/sys/fs/cgroup)(?=[/\"'\s)]|$)(\S*)")
MKTEMP = re.compile(r"\bmktemp\b")
TRAP_EXIT = re.compile(r"\btrap\s+(?:'([^']*)'|\"([^\"]*)\"|(\w+))\s+EXIT\b")
NFT_HOST = re.compile(r"(?:^|[;&|(]|\bthen\b|\bdo\b|\belse\b|\$\()\s*nft\s")


def code_of(line):
    """The line without a trailing shell/python comment (roughly: a # after whitespace)."""
    return re.split(r"\s#\s", line, maxsplit=1)[0]


def outside_quotes(code, pos):
    """True if position POS of CODE is outside a double- or single-quoted string."""
    dq = sq = False
    for ch in code[:pos]:
        if ch == '"' and not sq:
            dq = not dq
        elif ch == "'" and not dq:
            sq = not sq
    return not dq and not sq


def assignment_before(lines, var, before):
    """(line index, values) of the nearest VAR=VALUE or `for VAR in LIST` above line BEFORE."""
    rx_set = re.compile(r"(?<![\w$])" + re.escape(var) + r"=(\S*)")
    rx_for = re.compile(r"\bfor\s+" + re.escape(var) + r"\s+in\s+([^;\n]*)")
    for i in range(before - 1, -1, -1):
        m = rx_set.search(lines[i])
        if m:
            return i, [m.group(1)]
        m = rx_for.search(lines[i])
        if m:
            return i, m.group(1).split()
    return None, []


def carries_run(lines, word, at, depth=0):
    """True if WORD (a name as the script writes it on line AT) holds $BP_RUN: written in it,
    or in what its variables were last set to above (followed a few levels)."""
    word = word.strip("\"';")
    if "BP_RUN" in word:
        return True
    if depth > 4 or not re.fullmatch(r"(?:\$\{?\w+\}?)+", word):
        return False
    for name in re.findall(r"\$\{?(\w+)\}?", word):
        i, vals = assignment_before(lines, name, at)
        if i is None or not all(v.strip("\"'") == "" or carries_run(lines, v, i, depth + 1)
                                for v in vals):
            return False
    return True


def marked(lines, i, rx):
    """True if RX (an allowance) is on line I, on any line of the command it belongs to (lines
    joined by a trailing backslash), or on a comment line right above that command."""
    a = i
    while a > 0 and lines[a - 1].rstrip().endswith("\\"):
        a -= 1
    b = i
    while b < len(lines) - 1 and lines[b].rstrip().endswith("\\"):
        b += 1
    if a > 0 and lines[a - 1].lstrip().startswith("#"):
        a -= 1
    return any(rx.search(lines[j]) for j in range(a, b + 1))


def trap_keeps_tmp(text, body):
    """A trap's command, or the shell function it names, that never mentions $tap_tmp."""
    if "tap_tmp" in body:
        return False
    name = body.strip()
    m = re.search(r"^" + re.escape(name) + r"\(\)\s*\{", text, re.M) \
        if re.fullmatch(r"\w+", name) else None
    if not m:
        return True
    depth = 0
    for end in range(m.end() - 1, len(text)):  # to the brace that closes the body
        depth += {"{": 1, "}": -1}.get(text[end], 0)
        if depth == 0:
            break
    return "tap_tmp" not in text[m.end():end]


def check(path, text):
    problems = []
    in_heredoc_py = path.endswith(".py")
    lines = text.splitlines()
    for no, line in enumerate(lines, 1):
        stripped = line.lstrip()
        if stripped.startswith("#"):
            continue
        code = code_of(line) if not in_heredoc_py else line.split("  #")[0]
        if marked(lines, no - 1, ALLOW_ANY):
            continue
        where = f"{path}:{no}"
        if DOLLARS_ARITH.search(code) or ("$$" in code and PORT_WORD.search(code)):
            problems.append((where, "$$ in a port or in arithmetic (bp_ports, $BP_RUN, $BASHPID)", line))
        if RANDOM_PORT.search(code):
            problems.append((where, "a port from $RANDOM (bp_ports)", line))
        if not marked(lines, no - 1, ALLOW_PORT):
            for rx, what in PORT_LITERALS:
                m = rx.search(code)
                if m and int(m.group(1)) != 0:
                    problems.append((where, f"{what} ({m.group(1)}): bp_ports, or '# port-ok: WHY'", line))
                    break
            else:
                m = STOCK_SERVERS.search(code)
                if m and outside_quotes(code, m.end() - 1) and not re.search(r"\s-p\s", code):
                    problems.append((where, "a stock server on its default port: -p from bp_ports, "
                                     "or '# port-ok: WHY'", line))
        for m in NETNS_ADD.finditer(code):
            if outside_quotes(code, m.start()) and not carries_run(lines, m.group(1), no - 1):
                problems.append((where, f"ip netns add {m.group(1)}: the name must carry $BP_RUN", line))
        for m in FIXED_PATH.finditer(code):
            rest = m.group(2)
            if m.group(1) == "/run" and re.match(r"/(netns/|lock/boardperf-)", rest):
                continue  # the namespaces' own files; the machine-wide locks of tap.sh and rig.sh
            if "BP_RUN" in rest:
                continue
            problems.append((where, f"a fixed path {m.group(1)}{rest}: put it in $tap_tmp or "
                             "give it $BP_RUN", line))
        if MKTEMP.search(code) and "BP_RUN" not in code:
            problems.append((where, "mktemp without $BP_RUN in its template", line))
        m = TRAP_EXIT.search(code)
        if m and "tap.sh" in text and not path.endswith("tap.sh") and \
                trap_keeps_tmp(text, next(g for g in m.groups() if g is not None)):
            problems.append((where, "an EXIT trap replaces tap.sh's: remove $tap_tmp in it", line))
        m = NFT_HOST.search(code)
        if m and outside_quotes(code, m.end() - 1):
            problems.append((where, "nft in the host's namespace (ip netns exec / rig_exec)", line))
    return problems


LANES = ("solo", "lane_a", "lane_b", "figures_a", "figures_b", "figures_solo")


def check_lanes(path, text):
    """Every serial test (is_parallel : false) of meson.build names its lane (tools/ci/test.sh
    runs the serial tests lane by lane: one without a lane would run alone where no lane
    looked for it, or a side-by-side one in a lane would run twice), and only serial ones do."""
    problems = []
    for m in re.finditer(r"^test\('([\w-]+)',", text, re.M):
        depth, end = 0, m.start()
        for end in range(m.start(), len(text)):
            depth += {"(": 1, ")": -1}.get(text[end], 0)
            if depth == 0 and text[end] == ")":
                break
        block = text[m.start():end + 1]
        lane = re.search(r"suite : (\w+),", block)
        lane = lane.group(1) if lane and lane.group(1) in LANES else None
        serial = "is_parallel : false" in block
        where = f"{path}:{text.count(chr(10), 0, m.start()) + 1}"
        if serial and not lane:
            problems.append((where, f"serial test {m.group(1)} names no lane ({', '.join(LANES)})",
                             block.splitlines()[0]))
        if lane and not serial:
            problems.append((where, f"test {m.group(1)} in lane {lane} is not serial", block.splitlines()[0]))
    return problems


def main(args):
    here = os.path.dirname(os.path.abspath(__file__))
    roots = args or [here, os.path.join(here, "..", "rig", "rig.sh")]
    files = []
    for r in roots:
        if os.path.isdir(r):
            files += sorted(glob.glob(os.path.join(r, "*.sh")) + glob.glob(os.path.join(r, "*.py")))
        else:
            files.append(r)
    files = [f for f in files if os.path.basename(f) != os.path.basename(__file__)]
    if not args:
        files.append(os.path.join(here, "meson.build"))
    n = failed = 0
    for f in files:
        with open(f, encoding="utf-8") as fh:
            text = fh.read()
        rel = os.path.relpath(f, os.path.join(here, "..", ".."))
        problems = check_lanes(rel, text) if f.endswith("meson.build") else check(rel, text)
        if not problems:
            n += 1
            what = ("every serial test in a lane, only serial ones" if rel.endswith("meson.build")
                    else "nothing two tests could collide on")
            print(f"ok {n} - {rel}: {what}")
        for where, what, line in problems:
            n += 1
            failed += 1
            print(f"not ok {n} - {where}: {what}")
            print(f"#   {line.strip()}")
    if not files:
        n += 1
        failed += 1
        print(f"not ok {n} - no scripts found under {' '.join(roots)}")
    print(f"1..{n}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
