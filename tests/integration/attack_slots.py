#!/usr/bin/env python3
"""The attacker of test_attack_slots.sh: tests asked for and never connected, to hold slots.

attack_slots.py HOST PORT SOURCES PER_SOURCE SECONDS READYFILE

SOURCES is four octets, one of them a range FIRST-LAST (127.0.1.1-16: 16 addresses of one
/24; 127.0.3-18.1: 16 addresses of 16 /24s): from each of those addresses PER_SOURCE control
connections at once, each sending a cookie and a boardperf test's parameters (tcp -P 128
-t 10, so that a refusal comes as text) and then nothing: no data connection. Each one the
server ends (refused, or admitted and later released) is opened again 0.3 s later, at most
40 times per connection in all, until READYFILE.stop exists or SECONDS pass (from the first
connection). Written as things happen: READYFILE once every connection had its first
answer, READYFILE.settled once no test was admitted for SETTLE_S (the slots held have all
stalled a second, and no newcomer took one after: 1.2 s was too short, a newcomer back
0.3 s after its refusal took one 1.3 s after the last admission), READYFILE.released at the first release. At the end one JSON line: connections opened, admitted,
refused, released; the most admitted at once; each distinct refusal and release line
(digits written N) with its count and its first instance; the retry seconds the refusals
named; and the seconds from admission to each release.
"""
import json
import os
import re
import select
import socket
import struct
import sys
import time

host, port, sources, per_source, secs, ready = (sys.argv[1], int(sys.argv[2]), sys.argv[3],
                                                int(sys.argv[4]), float(sys.argv[5]),
                                                sys.argv[6])
octets = sources.split(".")
at = next(i for i, o in enumerate(octets) if "-" in o)
first, last = (int(x) for x in octets[at].split("-"))
ADDRS = [".".join(octets[:at] + [str(i)] + octets[at + 1:]) for i in range(first, last + 1)]
PARAMS = json.dumps({"tcp": True, "bp_test": "tcp", "bp_version": 1, "time": 10, "omit": 0,
                     "parallel": 128, "len": 131072, "client_version": "attack_slots"}).encode()
PARAM_EXCHANGE, CREATE_STREAMS, ACCESS_DENIED, SERVER_ERROR = 9, 10, 0xff, 0xfe
REOPEN_S = 0.3
# The server's BP_SERVER_STALLED_NS (1 s), a newcomer's REOPEN_S and its round trip on a
# busy machine.
SETTLE_S = 2.0
MAX_OPENS = 40 * len(ADDRS) * per_source

stats = {"opened": 0, "failed": 0, "admitted": 0, "refused": 0, "busy_state": 0,
         "released": 0, "closed": 0, "max_held": 0, "refusals": {}, "releases": {},
         "retry_s": [], "release_after_s": [], "examples": {}}
conns = {}      # fd -> dict(sock, slot, buf, phase, admitted_at)
reopen = {}     # slot -> when
answered = set()
last_admit = time.monotonic()
held = 0
cookie_n = 0


def make_cookie(n):
    alphabet = b"abcdefghijklmnopqrstuvwxyz234567"  # iperf3's
    out = bytearray()
    for _ in range(36):
        out.append(alphabet[n % 32])
        n //= 32
    return bytes(out) + b"\0"


def open_slot(slot):
    global cookie_n
    if stats["opened"] + stats["failed"] >= MAX_OPENS:
        return
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        s.bind((ADDRS[slot // per_source], 0))
        s.settimeout(2)
        s.connect((host, port))
        cookie_n += 1
        s.sendall(make_cookie(cookie_n + 10**6))
        s.setblocking(False)
    except OSError:
        stats["failed"] += 1
        s.close()
        reopen[slot] = time.monotonic() + REOPEN_S
        return
    stats["opened"] += 1
    conns[s.fileno()] = {"sock": s, "slot": slot, "buf": b"", "phase": "param",
                         "admitted_at": None}


def count(table, line):
    key = re.sub(r"\d+", "N", line)
    table[key] = table.get(key, 0) + 1
    stats["examples"].setdefault(key, line)


def finish(fd, why, text=None):
    """The server ended connection fd: refused, released or closed."""
    global held
    c = conns.pop(fd)
    c["sock"].close()
    answered.add(c["slot"])
    if c["admitted_at"] is not None:
        held -= 1
    if why == "error" and c["admitted_at"] is not None:
        stats["released"] += 1
        if stats["released"] == 1:
            mark(".released")
        stats["release_after_s"].append(round(time.monotonic() - c["admitted_at"], 2))
        count(stats["releases"], text)
    elif why == "error":
        stats["refused"] += 1
        count(stats["refusals"], text)
        m = re.search(r"try again in (\d+) s", text)
        if m:
            stats["retry_s"].append(int(m.group(1)))
    elif why == "busy":
        stats["busy_state"] += 1
    else:
        stats["closed"] += 1
    reopen[c["slot"]] = time.monotonic() + REOPEN_S


def step(fd):
    """Act on what connection fd has read so far."""
    global held, last_admit
    c = conns[fd]
    while c["buf"] and fd in conns:
        if c["phase"] == "error":
            if len(c["buf"]) < 4:
                return
            n = struct.unpack(">I", c["buf"][:4])[0]
            if len(c["buf"]) < 4 + n:
                return
            try:
                text = json.loads(c["buf"][4:4 + n]).get("error", "?")
            except ValueError:
                text = "unreadable error"
            finish(fd, "error", text)
            return
        state, c["buf"] = c["buf"][0], c["buf"][1:]
        if state == PARAM_EXCHANGE and c["phase"] == "param":
            c["sock"].setblocking(True)
            c["sock"].sendall(struct.pack(">I", len(PARAMS)) + PARAMS)
            c["sock"].setblocking(False)
            c["phase"] = "answer"
        elif state == CREATE_STREAMS and c["phase"] == "answer":
            c["phase"] = "held"  # and never a stream
            c["admitted_at"] = last_admit = time.monotonic()
            answered.add(c["slot"])
            stats["admitted"] += 1
            held += 1
            stats["max_held"] = max(stats["max_held"], held)
        elif state == SERVER_ERROR:
            c["phase"] = "error"
        elif state == ACCESS_DENIED:
            finish(fd, "busy")
        else:
            finish(fd, "closed")


def mark(suffix):
    with open(ready + suffix, "w") as f:
        f.write("yes\n")


end = time.monotonic() + secs
for slot in range(len(ADDRS) * per_source):
    open_slot(slot)
ready_written = False
stop_checked = 0.0
while time.monotonic() < end:
    now = time.monotonic()
    if now - stop_checked >= 0.1:
        stop_checked = now
        if os.path.exists(ready + ".stop"):
            break
    for slot, when in list(reopen.items()):
        if when <= now:
            del reopen[slot]
            open_slot(slot)
    if not ready_written and len(answered) == len(ADDRS) * per_source:
        mark("")
        ready_written = True
    if ready_written and now - last_admit >= SETTLE_S and "settled_s" not in stats:
        stats["settled_s"] = round(secs - (end - now), 2)
        mark(".settled")
    r, _, _ = select.select(list(conns), [], [], 0.05)
    # Releases first: a slot the server freed and gave to another connection of ours
    # arrives as two readable sockets, and the count held must not see both at once.
    r.sort(key=lambda fd: conns[fd]["phase"] != "held")
    for fd in r:
        try:
            data = conns[fd]["sock"].recv(4096)
        except OSError:
            data = b""
        if not data:
            finish(fd, "closed")
            continue
        conns[fd]["buf"] += data
        step(fd)
stats["held_at_end"] = held
for c in conns.values():
    c["sock"].close()
print(json.dumps(stats))
