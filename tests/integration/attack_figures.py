#!/usr/bin/env python3
"""The peers of test_attack_figures.sh (issue 31, item 8): figures each inside its own
domain but impossible together, from either end of the control protocol (iperf3's framing).

  attack_figures.py server PORT KIND...
      A fake server on 127.0.0.1:PORT that answers one real `boardperf tcp`/`udp` client per
      KIND, in order, with forged results: lost-gt-sent (errors 2^53 of the client's few
      datagrams), tiny-span (2^53 bytes received in 1e-300 s), streams-array (each stream
      an array where an object belongs), honest (the client's own counts mirrored). Every
      accept, read and test is bounded (5 s a step); exits after the last KIND.
  attack_figures.py client PORT [undercount]
      A forging UDP client of a real `boardperf serve`: 56 datagrams numbered 1..56, then
      one numbered 0xffffffff and three with the sender's clock years off, then TEST_END;
      its results say it sent 60. With undercount: 200 honest datagrams, and its results say
      it sent 10. Prints the server's results as one JSON line.
"""
import json
import socket
import struct
import sys
import time

from iperf_wire import (CREATE_STREAMS, DISPLAY_RESULTS, EXCHANGE_RESULTS, IPERF_DONE,
                        PARAM_EXCHANGE, TEST_END, TEST_RUNNING, TEST_START, random_cookie,
                        recv_all as read, recv_json, send_json)

STEP_S = 5


def forged(kind, theirs):
    """The server's results for KIND, from the client's own (theirs)."""
    mine = []
    for st in theirs.get("streams", []):
        span = max(st.get("end_time", 1.0), 0.1)
        s = {"id": st.get("id", 1), "bytes": st.get("bytes", 0), "retransmits": -1,
             "jitter": 0.0, "errors": 0, "packets": st.get("packets", 0),
             "start_time": 0, "end_time": span, "bp_sender": False}
        if kind == "lost-gt-sent":
            s["errors"] = 2 ** 53
        elif kind == "tiny-span":
            s.update({"bytes": 2 ** 53, "start_time": 0, "end_time": 1e-300})
        mine.append([s] if kind == "streams-array" else s)
    return {"cpu_util_total": 1.0, "cpu_util_user": 0.5, "cpu_util_system": 0.5,
            "sender_has_retransmits": 0, "streams": mine}


def serve_one(lsock, udp, kind):
    ctl, _ = lsock.accept()
    ctl.settimeout(STEP_S)
    read(ctl, 37)
    ctl.sendall(bytes([PARAM_EXCHANGE]))
    params = recv_json(ctl)
    ctl.sendall(bytes([CREATE_STREAMS]))
    data = []
    if params.get("udp"):
        hello, peer = udp.recvfrom(256)
        udp.sendto(b"6789", peer)
    else:
        for _ in range(int(params.get("parallel", 1))):
            d, _ = lsock.accept()
            d.settimeout(STEP_S)
            read(d, 37)
            d.setblocking(False)
            data.append(d)
    ctl.sendall(bytes([TEST_START, TEST_RUNNING]))
    ctl.setblocking(False)
    deadline = time.monotonic() + 3 * STEP_S
    state = None
    while state is None and time.monotonic() < deadline:
        for d in data:  # drain the TCP data so the client's sends go on
            try:
                while d.recv(1 << 16):
                    pass
            except (BlockingIOError, ConnectionError):
                pass
        try:
            udp.setblocking(False)
            while udp.recv(65536):
                pass
        except BlockingIOError:
            pass
        try:
            b = ctl.recv(1)
            state = b[0] if b else -1
        except BlockingIOError:
            time.sleep(0.01)
    ctl.settimeout(STEP_S)
    if state != TEST_END:
        raise RuntimeError("expected TEST_END, got %r" % state)
    for d in data:
        d.close()
    ctl.sendall(bytes([EXCHANGE_RESULTS]))
    theirs = recv_json(ctl)
    send_json(ctl, forged(kind, theirs))
    ctl.sendall(bytes([DISPLAY_RESULTS]))
    try:
        read(ctl, 1)
    except (EOFError, OSError):
        pass
    ctl.close()


def server(port, kinds):
    lsock = socket.create_server(("127.0.0.1", port))
    lsock.settimeout(4 * STEP_S)
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", port))
    udp.settimeout(STEP_S)
    print("listening", flush=True)
    for kind in kinds:
        try:
            serve_one(lsock, udp, kind)
        except (OSError, EOFError, RuntimeError, ValueError) as e:
            print("%s: %s" % (kind, e), file=sys.stderr, flush=True)


def client(port, undercount):
    cookie = random_cookie()
    ctl = socket.create_connection(("127.0.0.1", port), timeout=STEP_S)
    ctl.sendall(cookie)
    if read(ctl, 1)[0] != PARAM_EXCHANGE:
        sys.exit("no PARAM_EXCHANGE")
    send_json(ctl, {"udp": True, "time": 1, "parallel": 1, "len": 100,
                    "bandwidth": 1000000, "client_version": "3.16"})
    if read(ctl, 1)[0] != CREATE_STREAMS:
        sys.exit("no CREATE_STREAMS")
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.settimeout(1)
    u.connect(("127.0.0.1", port))
    for _ in range(3):
        u.send(b"9876")
        try:
            if u.recv(16) == b"6789":
                break
        except socket.timeout:
            pass
    if read(ctl, 2) != bytes([TEST_START, TEST_RUNNING]):
        sys.exit("the test did not start")

    def dgram(seq, sec=None, usec=0):
        now = time.time()
        if sec is None:
            sec, usec = int(now), int(now % 1 * 1e6)
        return struct.pack(">III", sec, usec, seq) + b"\0" * 88

    for seq in range(1, 201 if undercount else 57):
        u.send(dgram(seq))
        time.sleep(0.001)
    if not undercount:
        u.send(dgram(0xffffffff))
        for sec in (0xffffffff, 0, 0xffffffff):
            u.send(dgram(57, sec))
    time.sleep(0.1)
    ctl.sendall(bytes([TEST_END]))
    if read(ctl, 1)[0] != EXCHANGE_RESULTS:
        sys.exit("no EXCHANGE_RESULTS")
    send_json(ctl, {"cpu_util_total": 1, "cpu_util_user": 1, "cpu_util_system": 0,
                    "sender_has_retransmits": 0,
                    "streams": [{"id": 1, "bytes": 60 * 100, "retransmits": 0, "jitter": 0,
                                 "errors": 0, "packets": 10 if undercount else 60,
                                 "start_time": 0,
                                 "end_time": 0.2}]})
    theirs = recv_json(ctl)
    read(ctl, 1)
    ctl.sendall(bytes([IPERF_DONE]))
    print(json.dumps(theirs))


if __name__ == "__main__":
    if sys.argv[1] == "server":
        server(int(sys.argv[2]), sys.argv[3:])
    else:
        client(int(sys.argv[2]), sys.argv[3:] == ["undercount"])
