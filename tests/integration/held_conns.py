"""The poll loop of the attackers that hold connections open (attack_flood.py,
attack_loris.py): conns maps a descriptor to a list whose first two items are the socket
and when it connected."""
import select
import time


def hold(conns, stats, end, on_data, on_close, tick):
    """Until monotonic time end: bytes from a connection go to on_data(c, data); a connection
    the server closed is counted in stats["closed_by_server"], handed to on_close(c) and
    dropped; stats["max_held"] keeps the most held at once; tick(now) runs after each poll
    of at most 20 ms (what the attacker sends meanwhile, the connections it opens again)."""
    poller = select.poll()
    registered = set()
    while time.monotonic() < end:
        for fd in list(conns):
            if fd not in registered:
                poller.register(fd, select.POLLIN)
                registered.add(fd)
        stats["max_held"] = max(stats["max_held"], len(conns))
        for fd, _ in poller.poll(20):
            c = conns.get(fd)
            if not c:
                continue
            try:
                data = c[0].recv(4096)
            except BlockingIOError:
                continue
            except OSError:
                data = b""
            if data:
                on_data(c, data)
                continue
            stats["closed_by_server"] += 1
            on_close(c)
            poller.unregister(fd)
            registered.discard(fd)
            c[0].close()
            del conns[fd]
        tick(time.monotonic())
