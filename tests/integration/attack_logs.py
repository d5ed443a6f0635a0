#!/usr/bin/env python3
"""The peer of test_attack_logs.sh: what makes a server log, and a server whose text is hostile.

attack_logs.py flood PORT SECONDS SOURCE...
    Control connections to 127.0.0.1:PORT for SECONDS (at most 20,000 in all), round robin
    over the loopback SOURCE addresses, one at a time: the cookie, then parameters the
    server refuses, in turn a bogus iperf3 RSA token (256 random bytes in base64: one RSA
    decryption, then "iperf3 username refused") and a test of 100,000 s ("bad parameters").
    Waits for the server's answer (SERVER_ERROR or a close) before the next one. One JSON
    line at the end: connections made in all and per source, the seconds it took.
attack_logs.py forge PORT TEXT
    One control connection whose bp_test is TEXT (the server refuses it by name), and one
    TCP -R test whose congestion is TEXT (the server, the sender, fails to set it on its data
    connection and refuses by name). Prints what each got back.
attack_logs.py evil PORT SECONDS TEXT
    A fake server on 127.0.0.1:PORT for SECONDS: each connection's cookie is answered with
    SERVER_ERROR and boardperf's {"error": TEXT}, then closed.
TEXT is a JSON string literal (so that it can carry ESC, CR and newline through argv).
"""
import base64
import json
import os
import socket
import struct
import sys
import time

PARAM_EXCHANGE, CREATE_STREAMS, SERVER_ERROR = 9, 10, -2
MAX_CONNECTIONS = 20000


def cookie(n):
    alphabet = "abcdefghijklmnopqrstuvwxyz234567"
    out = ""
    for _ in range(36):
        out += alphabet[n % 32]
        n //= 32
    return (out + "\0").encode()


def send_json(s, obj):
    body = json.dumps(obj).encode()
    s.sendall(struct.pack(">I", len(body)) + body)


def state(s):
    b = s.recv(1)
    return struct.unpack("b", b)[0] if b else None


def control(port, n, params, source=None):
    """A control connection: cookie, PARAM_EXCHANGE, params; the state answered (None: closed)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(5)
    if source:
        s.bind((source, 0))
    s.connect(("127.0.0.1", port))
    s.sendall(cookie(n))
    if state(s) != PARAM_EXCHANGE:
        s.close()
        return None, None
    send_json(s, params)
    return s, state(s)


def flood(port, secs, sources):
    base = {"tcp": True, "time": 1, "parallel": 1, "len": 131072, "client_version": "3.12"}
    per = {a: 0 for a in sources}
    start = time.monotonic()
    n = 0
    while time.monotonic() - start < secs and n < MAX_CONNECTIONS:
        src = sources[n % len(sources)]
        p = dict(base)
        if (n // len(sources)) % 2 == 0:
            p["authtoken"] = base64.b64encode(os.urandom(256)).decode()
        else:
            p["time"] = 100000
        try:
            s, _ = control(port, 1000 + n, p, src)
            if s:
                s.recv(64)  # the reason, then the close
                s.close()
            per[src] += 1
        except OSError:
            pass
        n += 1
    print(json.dumps({"connections": sum(per.values()), "per_source": per,
                      "seconds": round(time.monotonic() - start, 3)}))


def forge(port, text):
    base = {"tcp": True, "time": 1, "parallel": 1, "len": 131072, "client_version": "3.12",
            "bp_version": 1}
    p = dict(base, bp_test=text)
    s, st = control(port, 7, p)
    print("bp_test: state %s" % st)
    if s:
        s.close()
    p = dict(base, reverse=True, congestion=text)
    s, st = control(port, 8, p)
    print("congestion: state %s" % st)
    if s and st == CREATE_STREAMS:
        d = socket.create_connection(("127.0.0.1", port), timeout=5)
        d.sendall(cookie(8))
        print("congestion: then state %s" % state(s))
        d.close()
    if s:
        s.close()


def evil(port, secs, text):
    body = ('{"error": %s}' % text).encode()
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", port))
    ls.listen(8)
    ls.settimeout(0.5)
    end = time.monotonic() + secs
    while time.monotonic() < end:
        try:
            c, _ = ls.accept()
        except socket.timeout:
            continue
        c.settimeout(2)
        try:
            got = b""
            while len(got) < 37:
                more = c.recv(37 - len(got))
                if not more:
                    break
                got += more
            c.sendall(struct.pack("b", SERVER_ERROR) + struct.pack(">I", len(body)) + body)
            time.sleep(0.2)
        except OSError:
            pass
        c.close()


mode, port = sys.argv[1], int(sys.argv[2])
if mode == "flood":
    flood(port, float(sys.argv[3]), sys.argv[4:])
elif mode == "forge":
    forge(port, json.loads(sys.argv[3]))
elif mode == "evil":
    evil(port, float(sys.argv[3]), sys.argv[4])
else:
    sys.exit("attack_logs.py: mode '%s': expected flood, forge or evil" % mode)
