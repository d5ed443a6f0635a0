# The attacker of test_attack_http.sh (python3, loopback only, every loop bounded in time).
#   reader PORT SECONDS: the 928 bytes of the report (32 pipelined "GET /1g"), then read
#     everything for at most SECONDS; prints "BYTES closed|open SECONDS-TO-CLOSE".
#   sink PORT SECONDS N: N connections with a 4 KiB receive buffer that never read: each
#     sends 8 pipelined "GET /1g", then a ninth request's header one byte every 0.1 s (a
#     trickle that keeps it from looking idle); prints, per connection, "reset SECONDS"
#     (when the server dropped it) or "open".
import select, socket, sys, time

REQ = b"GET /1g HTTP/1.1\r\nHost: x\r\n\r\n"
mode, port, secs = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
t0 = time.monotonic()
end = t0 + secs

def reader():
    s = socket.create_connection(("127.0.0.1", port))
    req = REQ * 32
    assert len(req) == 928
    s.sendall(req)
    total, closed, buf = 0, False, bytearray(1 << 20)
    while not closed and time.monotonic() < end:
        if not select.select([s], [], [], max(0, end - time.monotonic()))[0]:
            continue
        try:
            n = s.recv_into(buf)
        except ConnectionResetError:
            n = 0
        total += n
        closed = n == 0
    print(total, "closed" if closed else "open", "%.2f" % (time.monotonic() - t0))

def sink(n):
    socks, state = [], {}
    for _ in range(n):
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.connect(("127.0.0.1", port))
        s.setblocking(False)
        socks.append(s)
    p = select.poll()
    for s in socks:
        p.register(s, select.POLLOUT | select.POLLERR | select.POLLHUP)
    sent = {s.fileno(): 0 for s in socks}
    trickle = b"GET /1g HTTP/1.1\r\nX-Pad: " + b"a" * 100000
    while len(state) < n and time.monotonic() < end:
        for fd, ev in p.poll(100):
            s = next(x for x in socks if x.fileno() == fd)
            err = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
            if err or ev & (select.POLLERR | select.POLLHUP):
                state[fd] = time.monotonic() - t0
                p.unregister(fd)
                continue
            try:
                if not sent[fd]:
                    s.sendall(REQ * 8)
                sent[fd] += s.send(trickle[sent[fd]:sent[fd] + 1])
            except BlockingIOError:
                pass
            except OSError:
                state[fd] = time.monotonic() - t0
                p.unregister(fd)
        time.sleep(0.1)
    for s in socks:
        print("reset %.2f" % state[s.fileno()] if s.fileno() in state else "open")

if mode == "reader":
    reader()
else:
    sink(int(sys.argv[4]))
