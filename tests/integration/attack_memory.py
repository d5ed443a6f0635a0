#!/usr/bin/env python3
"""The attacker of test_attack_memory.sh: bytes a server must hold unparsed, held open.

attack_memory.py PORT COUNT SOURCES CLAIM SEND SECONDS READYFILE

With CLAIM 0, PORT is serve --http's: COUNT connections that send GET /1g and SEND bytes of
further pipelined requests and read nothing (a 4 KiB receive buffer), so the server's queue
stays full and what follows /1g waits unparsed. Otherwise, COUNT control connections to 127.0.0.1:PORT, spread over SOURCES source addresses
(127.0.1.1, 127.0.1.2, ...), each with a cookie of its own: it reads PARAM_EXCHANGE, sends
a parameter message's length as CLAIM bytes, then SEND bytes of it (SEND < CLAIM: never
whole), and stays open. Sending stops after 6 s; READYFILE is written once all were sent (or
then), and the connections are held SECONDS more. At the end one JSON line: how many got their
bytes out ("sent"), how many failed before that ("refused": the server closed them while
they were sending), and how many of those sent the server had closed by the end ("closed";
HTTP connections all have their answer to read, so there it says nothing).
"""
import json
import random
import select
import socket
import struct
import sys
import time

port, count, sources, claim, send, secs, ready = (int(sys.argv[1]), int(sys.argv[2]),
                                                  int(sys.argv[3]), int(sys.argv[4]),
                                                  int(sys.argv[5]), float(sys.argv[6]),
                                                  sys.argv[7])
ALPHABET = "abcdefghijklmnopqrstuvwxyz234567"
start = time.monotonic()
body = struct.pack(">I", claim) + b'{"title":"' + b"x" * max(0, send - 10)
GET = b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"
http = b"GET /1g HTTP/1.1\r\nHost: x\r\n\r\n" + GET * (send // len(GET))
conns, sent, refused = [], 0, 0
for i in range(count):
    if time.monotonic() - start > 6:
        break
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(3)
    try:
        s.bind(("127.0.1.%d" % (i % sources + 1), 0))
        if claim == 0:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            s.connect(("127.0.0.1", port))
            s.sendall(http)
            sent += 1
            conns.append(s)
            continue
        s.connect(("127.0.0.1", port))
        s.sendall("".join(random.choice(ALPHABET) for _ in range(36)).encode() + b"\0")
        if s.recv(1) != b"\x09":
            raise ConnectionError("no PARAM_EXCHANGE")
        s.sendall(body[:4 + send])
        sent += 1
        conns.append(s)
    except OSError:
        refused += 1
        s.close()
open(ready, "w").close()
held = time.monotonic()
while time.monotonic() - held < secs:
    time.sleep(0.1)
closed = 0
for s in conns:
    # A connection the server closed reads EOF or a reset; one still held would block.
    r, _, _ = select.select([s], [], [], 0)
    if r:
        try:
            s.recv(65536)
        except OSError:
            pass
        closed += 1
    s.close()
print(json.dumps({"connections": count, "sent": sent, "refused": refused, "closed": closed}))
