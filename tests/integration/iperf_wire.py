"""The control connection's framing for the attack tests' hand-made peers (attack_figures.py,
udp_greeter.py, test_attack_hijack.sh's hijack.py, test_attack_psk.sh's peer.py): a state is one signed
byte, a JSON message a 4-byte big-endian length and the text, a cookie 36 characters of
iperf3's alphabet and a NUL (docs/server.md; src/proto/control.c is the real one)."""
import json
import os
import select
import struct
import time

TEST_START, TEST_RUNNING, TEST_END = 1, 2, 4
PARAM_EXCHANGE, CREATE_STREAMS = 9, 10
EXCHANGE_RESULTS, DISPLAY_RESULTS, IPERF_DONE = 13, 14, 16
AUTH_CHALLENGE, AUTH_OK = 40, 41
SERVER_ERROR = -2
ALPHABET = b"abcdefghijklmnopqrstuvwxyz234567"


def recv_all(s, n, deadline=None):
    """Exactly n bytes of s, or EOFError when the peer closes first; with a deadline (a
    time.monotonic() instant), TimeoutError when they have not all come by then."""
    buf = b""
    while len(buf) < n:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([s], [], [], left)[0]:
                raise TimeoutError("no answer: %d of %d bytes by the deadline" % (len(buf), n))
        got = s.recv(n - len(buf))
        if not got:
            raise EOFError("peer closed")
        buf += got
    return buf


def state(s):
    return struct.unpack("b", recv_all(s, 1))[0]


def send_json(s, obj):
    body = json.dumps(obj).encode()
    s.sendall(struct.pack(">I", len(body)) + body)


def recv_json(s):
    return json.loads(recv_all(s, struct.unpack(">I", recv_all(s, 4))[0]))


def random_cookie():
    return bytes(ALPHABET[b & 31] for b in os.urandom(36)) + b"\0"
