#!/usr/bin/env python3
"""The attacker of test_attack_reflect.sh: a control connection from one address and the UDP
greeting ("9876", iperf3's UDP_CONNECT_MSG, and boardperf's "9876" + cookie) from another.

  udp_greeter.py test SERVER PORT CTL_ADDR HELLO_ADDR KIND [LEGIT]
      KIND: udp-r (stock iperf3's udp -R), bp-udp-r (boardperf's udp -R, the cookie in the
      hello), bp-rr-udp (boardperf's rr --udp: the hello, then requests from HELLO_ADDR).
      Opens the control connection from CTL_ADDR, sends the parameters, waits for
      CREATE_STREAMS, greets from HELLO_ADDR (3 times, as a lost hello is resent), then
      watches for 2.5 s: whether an answer or data reached HELLO_ADDR and whether the test
      started. With LEGIT, then greets from CTL_ADDR itself and counts what arrives there
      for 1 s. Prints one JSON line.
  udp_greeter.py flood SERVER PORT FROM COUNT GAP_MS
      COUNT greetings from FROM, GAP_MS apart, half of them with a random cookie.

Every wait is bounded; nothing here loops without a count or a deadline.
"""
import json
import select
import socket
import sys
import time

from iperf_wire import (CREATE_STREAMS, PARAM_EXCHANGE, TEST_START,
                        random_cookie as new_cookie, recv_all, send_json)

HELLO = b"9876"
REPLY = b"6789"


def family_of(addr):
    return socket.AF_INET6 if ":" in addr else socket.AF_INET


def udp_from(addr, server, port):
    s = socket.socket(family_of(addr), socket.SOCK_DGRAM)
    s.bind((addr, 0))
    s.connect((server, port))
    s.setblocking(False)
    return s


def params(kind):
    if kind == "udp-r":
        return {"udp": True, "reverse": True, "time": 2, "omit": 0, "parallel": 1,
                "len": 1200, "bandwidth": 10000000, "pacing_timer": 1000,
                "client_version": "3.12"}
    common = {"omit": 0, "parallel": 1, "client_version": "boardperf", "bp_version": 1,
              "bp_time_ns": 2000000000, "bp_omit_ns": 0, "bp_interval_ns": 0, "time": 2}
    if kind == "bp-udp-r":
        common.update({"udp": True, "reverse": True, "len": 1200, "bandwidth": 10000000,
                       "bp_test": "udp"})
    else:
        common.update({"tcp": True, "len": 64, "bp_test": "rr", "bp_rr_request": 64,
                       "bp_rr_response": 1024, "bp_rr_udp": True})
    return common


def drain(sock):
    """Data datagrams waiting on sock, and whether the server's answer was among them."""
    n, answered = 0, False
    while True:
        try:
            d = sock.recv(65536)
        except (BlockingIOError, ConnectionRefusedError):
            return n, answered
        # The answer is 4 bytes; anything else is data (a datagram, an rr response).
        if d == REPLY:
            answered = True
        else:
            n += 1


def watch(ctl, data, seconds, request=None):
    """For seconds: datagrams on data, state bytes on ctl. With request, send it every 10 ms."""
    got, answered, states = 0, False, []
    end = time.monotonic() + seconds
    next_req = time.monotonic()
    while time.monotonic() < end:
        if request is not None and time.monotonic() >= next_req:
            try:
                data.send(request)
            except OSError:
                pass
            next_req += 0.01
        r = select.select([ctl, data], [], [], 0.01)[0]
        if data in r:
            n, a = drain(data)
            got, answered = got + n, answered or a
        if ctl in r:
            b = ctl.recv(64)
            if not b:
                states.append("closed")
                break
            states += list(b)
    return got, answered, states


def test(server, port, ctl_addr, hello_addr, kind, legit):
    cookie = new_cookie()
    ctl = socket.socket(family_of(ctl_addr), socket.SOCK_STREAM)
    ctl.bind((ctl_addr, 0))
    ctl.settimeout(3)
    ctl.connect((server, port))
    ctl.sendall(cookie)
    deadline = time.monotonic() + 3
    if recv_all(ctl, 1, deadline)[0] != PARAM_EXCHANGE:
        raise ConnectionError("expected PARAM_EXCHANGE")
    send_json(ctl, params(kind))
    state = recv_all(ctl, 1, deadline)[0]
    if state != CREATE_STREAMS:
        raise ConnectionError("expected CREATE_STREAMS, got state %d" % state)
    hello = HELLO if kind == "udp-r" else HELLO + cookie
    request = b"\0" * 64 if kind == "bp-rr-udp" else None
    spoof = udp_from(hello_addr, server, port)
    for _ in range(3):
        spoof.send(hello)
    got, answered, states = watch(ctl, spoof, 2.5, request)
    out = {"kind": kind, "spoofed_received": got, "spoofed_answered": answered,
           "started_on_spoof": TEST_START in states}
    if legit:
        real = udp_from(ctl_addr, server, port)
        real.send(hello)
        got, answered, states = watch(ctl, real, 1.0, request)
        out.update({"legit_received": got, "legit_answered": answered,
                    "legit_started": TEST_START in states or out["started_on_spoof"]})
        real.close()
    spoof.close()
    ctl.close()
    print(json.dumps(out))


def flood(server, port, src, count, gap_ms):
    s = udp_from(src, server, port)
    sent = 0
    for i in range(count):
        hello = HELLO if i % 2 == 0 else HELLO + new_cookie()
        try:
            s.send(hello)
            sent += 1
        except OSError:
            pass
        drain(s)
        time.sleep(gap_ms / 1000.0)
    print(json.dumps({"flood_sent": sent}))


def main(argv):
    if len(argv) >= 6 and argv[1] == "test":
        test(argv[2], int(argv[3]), argv[4], argv[5], argv[6], len(argv) > 7)
    elif len(argv) == 7 and argv[1] == "flood":
        flood(argv[2], int(argv[3]), argv[4], int(argv[5]), float(argv[6]))
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
