#!/usr/bin/env bash
# A server locked with a pre-shared key (serve --psk, docs/server.md, "Pre-shared key"), attacked on
# loopback: the right key passes tcp, udp, rr and crr; no key, a wrong key, a key file
# others may read and a key too short are each refused with their line (one at the client,
# one in the server's log); a stock iperf3 is refused; a client with --psk refuses a server
# that is not locked; the key never crosses the wire (strace of both ends' writes); and a
# hand-made client shows what the binary cannot: a data connection (TCP or a UDP hello)
# presenting the cookie of a session that has not authenticated is refused (after it, a
# stream is taken with its key proof, protocol 2: test_attack_hijack.sh), the server's
# proof checks out with Python's own HMAC, and an answer replayed against a new nonce is
# refused. Usage: test_attack_psk.sh BOARDPERF
set -u
bp=$1
. "$(dirname "$0")/tap.sh"
# The hand-made peers below import iperf_wire.py (states, framing, cookies) from here.
export PYTHONPATH="$(cd "$(dirname "$0")" && pwd)${PYTHONPATH:+:$PYTHONPATH}"

pids=()
# A server under strace is strace's child: each is stopped by its own PID.
cleanup() {
	for p in "${pids[@]}"; do
		for c in $(pgrep -P "$p" 2>/dev/null); do kill "$c" 2>/dev/null; done
		kill "$p" 2>/dev/null
	done
	wait 2>/dev/null
}
trap 'cleanup; rm -rf "$tap_tmp"' EXIT
# count_log FILE STRING: how many lines of the server's log hold STRING
count_log() { grep -cF -- "$2" "$1"; }

umask 077
key=$tap_tmp/key wrong=$tap_tmp/wrong
head -c 32 /dev/urandom | base64 >"$key"
head -c 32 /dev/urandom | base64 >"$wrong"
key_text=$(tr -d '\n' <"$key")

# A locked server, under strace: every byte it writes to any socket is kept, in hex.
# Two servers, two reserved ports (tap.sh): the locked one on port0, the open one on port0 + 1.
bp_ports 2; port0=$BP_PORT nservers=0
start_server() { # start_server LOG [serve options]: sets $port and $spid
	local log=$1
	shift
	port=$((port0 + nservers)) nservers=$((nservers + 1))
	"$@" -B 127.0.0.1 -p "$port" 2>"$log" &
	spid=$!
	wait_log "$log" "listening on 127.0.0.1:$port"
	pids+=("$spid")
}
# Under strace the server is strace's child: stop the server by its own PID, then strace.
stop_server() {
	local child
	child=$(pgrep -P "$spid" 2>/dev/null)
	[ -n "$child" ] && kill "$child" 2>/dev/null
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
}
have_strace=0
command -v strace >/dev/null && have_strace=1
# LeakSanitizer cannot run under a tracer (an ASan build would fail at exit): off there.
strace_env=(env "ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0")
wrap=()
[ "$have_strace" = 1 ] && wrap=("${strace_env[@]}" strace -f -qq -xx -s 65536
				-e trace=write,sendto,sendmsg,writev -o "$tap_tmp/server.strace")
slog=$tap_tmp/serve.log
start_server "$slog" "${wrap[@]}" "$bp" serve --psk "$key" --idle-timeout 3
kill -0 "$spid" 2>/dev/null && grep -q "locked: a test needs the pre-shared key" "$slog"
ok $? "a server with --psk listens on $port and says it is locked"

# --- the right key ---------------------------------------------------------------------------
cwrap=()
[ "$have_strace" = 1 ] && cwrap=("${strace_env[@]}" strace -f -qq -xx -s 65536
				 -e trace=write,sendto,sendmsg,writev -o "$tap_tmp/client.strace")
expect_exit 0 "tcp with the right key" "${cwrap[@]}" "$bp" tcp -c 127.0.0.1 -p "$port" -t 1 \
	--psk "$key" --json
jq -e '[.metrics[] | select(.name == "receiver.bytes") | .value] | .[0] > 0' <<<"$out" \
	>/dev/null
ok $? "tcp with the right key moved data"
grep -qF -- "$key_text" <<<"$out"
[ $? = 1 ]
ok $? "the tcp result names the key file, never the key"
expect_exit 0 "udp with the right key" "$bp" udp -c 127.0.0.1 -p "$port" -t 1 -b 10M \
	--psk "$key" --json
jq -e '[.metrics[] | select(.name == "receiver.packets") | .value] | .[0] > 0' <<<"$out" \
	>/dev/null
ok $? "udp with the right key moved datagrams"
for cmd in rr crr; do
	expect_exit 0 "$cmd with the right key" "$bp" "$cmd" -c 127.0.0.1 -p "$port" -t 0.5 \
		--psk "$key" --json
done
expect_exit 0 "rfc2544 with the right key (one frame size, short trials)" \
	"$bp" rfc2544 -c 127.0.0.1 -p "$port" --sizes 1518 --trial 0.2 --max 20M \
	--resolution 50 --psk "$key" --json

# --- refusals, each with its line --------------------------------------------------------------
n0=$(count_log "$slog" "the server needs a pre-shared key (--psk)")
expect_exit 1 "tcp without a key is refused" "$bp" tcp -c 127.0.0.1 -p "$port" -t 1
[ "$(wc -l <<<"$err")" = 1 ] && grep -q "the server needs a pre-shared key (--psk)" <<<"$err"
ok $? "  its one line: the server needs a pre-shared key (--psk)"
wait_log "$slog" "the server needs a pre-shared key"
[ "$(count_log "$slog" "the server needs a pre-shared key (--psk)")" = $((n0 + 1)) ]
ok $? "  the server logs one line"
expect_exit 1 "udp without a key is refused" "$bp" udp -c 127.0.0.1 -p "$port" -t 1
grep -q "the server needs a pre-shared key (--psk)" <<<"$err"
ok $? "  with the same line"

expect_exit 1 "tcp with a wrong key is refused" "$bp" tcp -c 127.0.0.1 -p "$port" -t 1 \
	--psk "$wrong" --json
[ "$(wc -l <<<"$err")" = 1 ] && grep -q "wrong key" <<<"$err" &&
	jq -e '.error.code == "server-refused" and (.error.message | test("wrong key"))' \
		<<<"$out" >/dev/null
ok $? "  its one line says wrong key (and the JSON's error: server-refused)"
wait_log "$slog" "wrong key"; sleep 0.2  # a second line would come with the first
[ "$(count_log "$slog" "wrong key")" = 1 ]
ok $? "  the server logs one line"

chmod 644 "$wrong"
expect_exit 2 "a key file others may read is refused (client)" \
	"$bp" tcp -c 127.0.0.1 -p "$port" -t 1 --psk "$wrong"
grep -q "permissions 0644 are too open.*chmod 600" <<<"$err"
ok $? "  naming its permissions and the fix"
# port-ok: a usage error, refused before any bind
expect_exit 2 "a key file others may read is refused (serve)" "$bp" serve -p 1 --psk "$wrong"
grep -q "permissions 0644 are too open" <<<"$err"
ok $? "  naming its permissions"
printf 'fifteen bytes!!\n' >"$tap_tmp/short"
expect_exit 2 "a key of 15 bytes is refused (client)" \
	"$bp" tcp -c 127.0.0.1 -p "$port" -t 1 --psk "$tap_tmp/short"
grep -q "15 bytes of key; expected at least 16" <<<"$err"
ok $? "  naming its length and the least"
# port-ok: a usage error, refused before any bind
expect_exit 2 "a key of 15 bytes is refused (serve)" "$bp" serve -p 1 --psk "$tap_tmp/short"

if command -v iperf3 >/dev/null; then
	expect_exit 1 "a stock iperf3 client is refused" timeout 20 iperf3 -c 127.0.0.1 \
		-p "$port" -t 1
	grep -q "test authorization failed" <<<"$out$err"
	ok $? "  iperf3 prints: test authorization failed"
	wait_log "$slog" "iperf3 client refused"
	ok $? "  the server logs it"
else
	skip "a stock iperf3 client is refused" "no iperf3"
fi

# --- a client with --psk against a server that is not locked -----------------------------------
olog=$tap_tmp/open.log
lport=$port lpid=$spid
start_server "$olog" "$bp" serve
open_port=$port
expect_exit 1 "a client with --psk refuses an unlocked server" \
	"$bp" tcp -c 127.0.0.1 -p "$open_port" -t 1 --psk "$key" --json
grep -q "asked for no key.*not locked" <<<"$err" && jq -e '.error.code == "permission"' \
	<<<"$out" >/dev/null
ok $? "  its line says the server is not locked (error code permission)"
expect_exit 0 "the unlocked server still tests a client without a key" \
	"$bp" tcp -c 127.0.0.1 -p "$open_port" -t 0.5 --json
port=$lport spid=$lpid

# --- the hand-made client: unauthenticated cookies, the server's proof, a replay ---------------
cat >"$tap_tmp/peer.py" <<'EOF'
import hashlib, hmac, json, socket, struct, sys, time
from iperf_wire import *  # tests/integration/iperf_wire.py: states, framing
port, key, what = int(sys.argv[1]), open(sys.argv[2], "rb").read().rstrip(b"\n"), sys.argv[3]
def mac(nonce, cookie, side):
    return hmac.new(key, nonce + cookie[:36] + b"boardperf-psk " + side, hashlib.sha256).hexdigest()
def control(cookie, udp):
    s = socket.create_connection(("127.0.0.1", port), timeout=3)
    s.sendall(cookie)
    assert state(s) == 9, "PARAM_EXCHANGE"
    cn = bytes(range(32))
    send_json(s, {"udp" if udp else "tcp": True, "time": 1, "omit": 0, "parallel": 1,
                  "len": 1000, "bandwidth": 1000000, "bp_version": 2,
                  "bp_test": "udp" if udp else "tcp", "bp_psk_nonce": cn.hex()})
    st = state(s)
    assert st == AUTH_CHALLENGE, "challenge, got %d" % st
    return s, cn, bytes.fromhex(recv_json(s)["psk_nonce"])
def data_refused(cookie):
    """A TCP data connection with this cookie: True when the server closes it."""
    d = socket.create_connection(("127.0.0.1", port), timeout=2)
    d.sendall(cookie)
    try:
        return d.recv(1) == b""
    except socket.timeout:
        return False
    except ConnectionResetError:
        return True
def udp_hello(cookie):
    """A UDP hello with this cookie; True when the server answered it."""
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.connect(("127.0.0.1", port)); u.settimeout(1)
    try:
        for _ in range(3):
            u.send(b"9876" + cookie)
            try:
                return u.recv(64)[:4] == b"6789"
            except socket.timeout:
                pass
        return False
    except ConnectionRefusedError:
        return False
def quiet(s, t):
    """True when nothing arrives on the control connection for t seconds."""
    s.settimeout(t)
    try:
        s.recv(1, socket.MSG_PEEK)  # a byte, or the close: something happened
        return False
    except socket.timeout:
        return True
    finally:
        s.settimeout(3)
def cookie(c): return (c * 36)[:36].encode() + b"\0"
out = {}
if what == "tcp":
    ck = cookie("a")
    s, cn, sn = control(ck, False)
    out["data_before_auth_refused"] = data_refused(ck)
    send_json(s, {"psk_mac": mac(sn, ck, b"client")})
    out["auth_ok"] = state(s) == AUTH_OK
    out["server_proof_ok"] = hmac.compare_digest(recv_json(s)["psk_mac"], mac(cn, ck, b"server"))
    out["create_streams"] = state(s) == CREATE_STREAMS
    # protocol 2: the stream proves the key after its cookie (test_attack_hijack.sh for more)
    sk = hmac.new(key, sn + ck[:36] + b"boardperf-psk streams", hashlib.sha256).digest()
    i = struct.pack(">I", 0)
    out["data_after_auth_taken"] = not data_refused(
        ck + i + hmac.new(sk, i + b"boardperf-psk stream", hashlib.sha256).digest())
    answer = mac(sn, ck, b"client")
    s.close(); time.sleep(0.5)
    # The same cookie again, a new nonce, the old answer: a replay.
    s, cn, sn2 = control(ck, False)
    out["nonce_is_new"] = sn2 != sn
    send_json(s, {"psk_mac": answer})
    st = state(s)
    out["replay_refused"] = st == SERVER_ERROR and "wrong key" in recv_json(s).get("error", "")
elif what == "udp":
    # The session counts no UDP stream before its client authenticated: the test, one
    # stream, starts (TEST_START) only on a hello that came after CREATE_STREAMS.
    ck = cookie("b")
    s, cn, sn = control(ck, True)
    udp_hello(ck)
    out["hello_before_auth_no_reaction"] = quiet(s, 1)
    send_json(s, {"psk_mac": mac(sn, ck, b"client")})
    out["auth_ok"] = state(s) == AUTH_OK
    recv_json(s)
    out["create_streams"] = state(s) == CREATE_STREAMS
    out["hello_before_auth_not_counted"] = quiet(s, 1)
    out["hello_after_auth_answered"] = udp_hello(ck)
    out["test_starts_on_it"] = state(s) == 1
print(json.dumps(out))
EOF
res=$(timeout 30 python3 "$tap_tmp/peer.py" "$port" "$key" tcp 2>&1)
echo "# tcp peer: $res"
for k in data_before_auth_refused auth_ok server_proof_ok create_streams data_after_auth_taken \
	 nonce_is_new replay_refused; do
	jq -e ".$k == true" <<<"$res" >/dev/null 2>&1
	ok $? "hand-made client: $k"
done
res=$(timeout 30 python3 "$tap_tmp/peer.py" "$port" "$key" udp 2>&1)
echo "# udp peer: $res"
for k in hello_before_auth_no_reaction auth_ok create_streams hello_before_auth_not_counted \
	 hello_after_auth_answered test_starts_on_it; do
	jq -e ".$k == true" <<<"$res" >/dev/null 2>&1
	ok $? "hand-made client (udp): $k"
done

# --- the key never on the wire -------------------------------------------------------------------
# strace -xx writes every buffer as \xNN: look for the key in that form.
hexkey=$(printf '%s' "$key_text" | od -An -v -tx1 | tr -d ' \n' | sed 's/../\\x&/g')
hexof() { printf '%s' "$1" | od -An -v -tx1 | tr -d ' \n' | sed 's/../\\x&/g'; }
if [ "$have_strace" = 1 ]; then
	# The method can fail: the key written by cat is found.
	strace -qq -xx -s 65536 -e trace=write -o "$tap_tmp/cat.strace" cat "$key" >/dev/null
	grep -qF -- "$hexkey" "$tap_tmp/cat.strace"
	ok $? "strace -xx shows a key that is written (cat)"
	grep -qF -- "$(hexof '"psk_mac"')" "$tap_tmp/client.strace" &&
		grep -qF -- "$(hexof '"psk_nonce"')" "$tap_tmp/server.strace"
	ok $? "both traces hold the exchange (the client's psk_mac, the server's psk_nonce)"
	grep -qF -- "$hexkey" "$tap_tmp/client.strace"
	[ $? = 1 ]
	ok $? "the key is in none of the client's writes"
	stop_server  # strace has written everything once the server is gone
	grep -qF -- "$hexkey" "$tap_tmp/server.strace"
	[ $? = 1 ]
	ok $? "the key is in none of the server's writes"
else
	skip "the key never on the wire" "no strace"
fi
echo "1..$tap_n"
[ "$tap_failed" = 0 ]
