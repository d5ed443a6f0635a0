#!/usr/bin/env python3
"""The attacker of test_attack_flood.sh: connections to a loopback port, held open.

attack_flood.py MODE HOST PORT COUNT SECONDS READYFILE [SOURCE]

MODE
  junk      COUNT connections that never send a cookie: a third send nothing, a third a few
            bytes of one, a third 37 bytes that are not a cookie; each one the server closes
            is opened again (at most 1,000 a second, at most 30 * COUNT in all)
  cookie    COUNT connections that send a valid cookie and nothing after it (a session
            waiting for its parameters), reopened like junk
  slowloris COUNT connections that send a valid cookie one byte a second
  slowparams COUNT connections that send a valid cookie at once, then the parameters'
            4-byte length one byte a second
Every connection runs until SECONDS pass; READYFILE is written once COUNT were connected.
At the end one JSON line: what was opened, closed by the server, the most held at once,
and (slow modes) each connection's seconds from connect to the server's close.
"""
import json
import socket
import sys
import time

from held_conns import hold

mode, host, port, count, secs, ready = (sys.argv[1], sys.argv[2], int(sys.argv[3]),
                                        int(sys.argv[4]), float(sys.argv[5]), sys.argv[6])
source = sys.argv[7] if len(sys.argv) > 7 else None
COOKIE = b"abcdefghijklmnopqrstuvwxyz234567abcd\0"  # 36 cookie characters and a NUL
assert len(COOKIE) == 37
slow = mode in ("slowloris", "slowparams")
max_opens = count if slow else 30 * count
end = time.monotonic() + secs
conns = {}  # fd -> [sock, connected at, bytes sent of the slow payload, index]
stats = {"mode": mode, "opened": 0, "failed": 0, "closed_by_server": 0, "max_held": 0,
         "drop_after_s": []}
cookie_n = 0


def payload(i):
    """What connection i sends at once (junk and cookie modes)."""
    global cookie_n
    if mode == "cookie":
        cookie_n += 1
        return make_cookie(cookie_n)
    return (b"", b"xyzzy", b"GET / HTTP/1.1\r\nHost: x\r\n\r\n0123456789")[i % 3]


def make_cookie(n):
    # 36 characters from iperf3's alphabet, distinct per connection
    alphabet = b"abcdefghijklmnopqrstuvwxyz234567"
    out = bytearray()
    for _ in range(36):
        out.append(alphabet[n % 32])
        n //= 32
    return bytes(out) + b"\0"


def open_one(i):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        if source:
            s.bind((source, 0))
        s.settimeout(2)
        s.connect((host, port))
        s.setblocking(False)
        if not slow:
            data = payload(i)
            if data:
                s.send(data)
        elif mode == "slowparams":
            s.send(make_cookie(10**6 + i))
    except OSError:
        stats["failed"] += 1
        s.close()
        return
    stats["opened"] += 1
    conns[s.fileno()] = [s, time.monotonic(), 0, i]


for i in range(count):
    open_one(i)
with open(ready, "w") as f:
    f.write("%d\n" % len(conns))
next_byte = time.monotonic() + 1
budget_t, budget = time.monotonic(), 0


def on_close(c):
    if slow:
        stats["drop_after_s"].append(round(time.monotonic() - c[1], 2))


def tick(now):
    """Slow modes: one byte a second; the others: the closed ones opened again."""
    global next_byte, budget_t, budget
    if slow and now >= next_byte:
        next_byte += 1
        for c in conns.values():
            msg = COOKIE if mode == "slowloris" else b"\0\0\1\0"
            if c[2] < len(msg):
                try:
                    c[0].send(msg[c[2]:c[2] + 1])
                    c[2] += 1
                except OSError:
                    pass
    if not slow:
        if now - budget_t >= 1:
            budget_t, budget = now, 0
        while len(conns) < count and stats["opened"] < max_opens and budget < 1000:
            budget += 1
            open_one(stats["opened"])


# bytes from the server (its PARAM_EXCHANGE) leave a connection held
hold(conns, stats, end, lambda c, data: None, on_close, tick)
for c in conns.values():
    c[0].close()
stats["held_at_end"] = len(conns)
print(json.dumps(stats), flush=True)
