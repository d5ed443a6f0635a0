#!/usr/bin/env bash
# iperf3's username/password authentication (issue 16, item 4b) on loopback, both ways with
# Debian's iperf3:
#   - a locked `boardperf serve` (--rsa-private-key-path, --authorized-users-path): the stock
#     iperf3 client with --username and the right password runs its test; a wrong password
#     and no --username get iperf3's own "test authorization failed";
#   - the attacker's bytes: a raw control connection sends tokens made with openssl
#     (stale, future, wrong password, other padding, cut, oversized, not base64, a text
#     that is not iperf3's): each gets SERVER_ERROR and code 142, while a fresh right token
#     sent the same way gets CREATE_STREAMS (so the harness itself can fail); the server
#     keeps serving and never logs the password;
#   - boardperf tcp/udp --username against that server and against a locked stock
#     `iperf3 -s`: the right password runs, a wrong one is refused.
# Usage: test_attack_auth.sh BOARDPERF
set -u
bp=$1
. "$(dirname "$0")/tap.sh"

for tool in iperf3 openssl jq python3 setsid; do
	if ! command -v "$tool" >/dev/null; then
		echo "1..0 # SKIP $tool not installed"
		exit 0
	fi
done

bp_ports 2; port=$BP_PORT  # tap.sh: a block of 2 ports, this test's alone
sport=$((port + 1))                    # a locked stock iperf3 server
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; }
trap 'cleanup; rm -rf "$tap_tmp"' EXIT
# expect_fail WANT WHAT CMD...: the exit status only (a refusal prints no result to check)
expect_fail() {
	local want=$1 what=$2 got
	shift 2
	out=$("$@" 2>"$tap_tmp/stderr") && got=0 || got=$?
	err=$(cat "$tap_tmp/stderr")
	[ "$got" -eq "$want" ]; ok $? "$what (exit $got, want $want)"
	[ "$got" -eq "$want" ] || printf '#   stderr: %s\n' "$err"
}

# Keys and users as an iperf3 user makes them (iperf3's README: sha256 of "{user}password").
key=$tap_tmp/private.pem pubkey=$tap_tmp/public.pem users=$tap_tmp/users.csv
openssl genrsa -out "$key" 2048 2>/dev/null && openssl rsa -in "$key" -pubout -out "$pubkey" 2>/dev/null
ok $? "openssl made an RSA-2048 key pair"
hash() { printf '%s' "{$1}$2" | sha256sum | cut -d' ' -f1; }
printf '# lab users\nmario,%s\nluigi,%s\n' "$(hash mario rossi)" "$(hash luigi verdi)" >"$users"
secret=rossi

slog=$tap_tmp/serve.log
"$bp" serve -p "$port" --idle-timeout 3 --rsa-private-key-path "$key" \
	--authorized-users-path "$users" 2>"$slog" &
pids+=($!)
wait_log "$slog" listening; ok $? "locked boardperf serve listens on $port"
grep -q "locked: iperf3 --username" "$slog"; ok $? "its log says it is locked and how"

# --- stock iperf3 client -> locked boardperf serve ---
IPERF3_PASSWORD=$secret expect_exit 0 "iperf3 client --username mario, right password" \
	iperf3 -c 127.0.0.1 -p "$port" -t 1 -J --username mario --rsa-public-key-path "$pubkey"
jq -e '.end.sum_received.bytes > 1000000' <<<"$out" >/dev/null
ok $? "the authenticated iperf3 test moved data ($(jq .end.sum_received.bytes <<<"$out") B)"
IPERF3_PASSWORD=wrong expect_fail 1 "iperf3 client, wrong password: refused" \
	iperf3 -c 127.0.0.1 -p "$port" -t 1 --username mario --rsa-public-key-path "$pubkey"
grep -q "test authorization failed" <<<"$out$err"; ok $? "iperf3 prints its own line: test authorization failed"
IPERF3_PASSWORD=$secret expect_fail 1 "iperf3 client, user not in the file: refused" \
	iperf3 -c 127.0.0.1 -p "$port" -t 1 --username peach --rsa-public-key-path "$pubkey"
expect_fail 1 "iperf3 client without --username: refused" iperf3 -c 127.0.0.1 -p "$port" -t 1
grep -q "test authorization failed" <<<"$out$err"; ok $? "... with iperf3's own line"
IPERF3_PASSWORD=verdi expect_exit 0 "iperf3 -R, second user luigi" \
	iperf3 -c 127.0.0.1 -p "$port" -t 1 -R --username luigi --rsa-public-key-path "$pubkey"

# --- the attacker's bytes: a raw control connection with hand-made tokens ---
# attack JSON_FILE: cookie, PARAM_EXCHANGE, the parameters; prints what came back:
# "refused CODE" (SERVER_ERROR and iperf3's two numbers), "state N", or "closed".
attack() {
	python3 - "$port" "$1" <<'EOF'
import random, socket, struct, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
cookie = "".join(random.choice("abcdefghijklmnopqrstuvwxyz234567") for _ in range(36))
s.sendall(cookie.encode() + b"\0")
assert s.recv(1) == b"\x09", "no PARAM_EXCHANGE"
body = open(sys.argv[2], "rb").read()
s.sendall(struct.pack(">I", len(body)) + body)
b = s.recv(1)
if not b:
    print("closed")
elif b == b"\xfe":
    buf = b""
    while len(buf) < 8:
        more = s.recv(8 - len(buf))
        if not more:
            break
        buf += more
    print("refused %d" % struct.unpack(">i", buf[:4])[0] if len(buf) >= 4 else "refused ?")
else:
    print("state %d" % struct.unpack("b", b)[0])
EOF
}
# token USER PASSWORD TS [PADDING]: iperf3's text encrypted with openssl, in base64
token() {
	printf 'user: %s\npwd:  %s\nts:   %s' "$1" "$2" "$3" |
		openssl pkeyutl -encrypt -pubin -inkey "$pubkey" -pkeyopt "rsa_padding_mode:${4:-pkcs1}" |
		base64 -w0
}
params() { printf '{"tcp":true,"time":1,"parallel":1,"len":131072,"client_version":"3.12","authtoken":"%s"}' "$1" >"$tap_tmp/p.json"; }
now=$(date +%s)

params "$(token mario "$secret" "$now")"
got=$(attack "$tap_tmp/p.json")
[ "$got" = "state 10" ]; ok $? "a fresh right token made with openssl gets CREATE_STREAMS ($got)"
refused() { # refused WHAT TOKEN
	params "$2"
	got=$(attack "$tap_tmp/p.json")
	[ "$got" = "refused 142" ]; ok $? "$1: SERVER_ERROR, code 142 ($got)"
}
refused "token 60 s old (a replay)" "$(token mario "$secret" $((now - 60)))"
refused "token 60 s ahead" "$(token mario "$secret" $((now + 60)))"
refused "token 11 s old, past the 10 s threshold" "$(token mario "$secret" $((now - 11)))"
refused "wrong password" "$(token mario nope "$now")"
refused "luigi's password for mario" "$(token mario verdi "$now")"
refused "OAEP token to a PKCS#1 server" "$(token mario "$secret" "$now" oaep)"
good=$(token mario "$secret" "$now")
refused "token cut by 4 characters" "${good:0:$((${#good} - 4))}"
refused "token with a character changed" "${good:0:100}$( [ "${good:100:1}" = A ] && echo B || echo A)${good:101}"
refused "not base64" '!!!!not-base64!!!!'
refused "empty token" ""
refused "1400 characters (past the 1368 cap)" "$(head -c 1050 /dev/urandom | base64 -w0 | head -c 1400)"
refused "text with a trailing newline" "$(printf 'user: mario\npwd:  %s\nts:   %s\n' "$secret" "$now" |
	openssl pkeyutl -encrypt -pubin -inkey "$pubkey" -pkeyopt rsa_padding_mode:pkcs1 | base64 -w0)"
refused "text that is not iperf3's" "$(printf 'mario:%s' "$secret" |
	openssl pkeyutl -encrypt -pubin -inkey "$pubkey" -pkeyopt rsa_padding_mode:pkcs1 | base64 -w0)"
printf '{"tcp":true,"time":1,"parallel":1,"len":131072,"authtoken":12345}' >"$tap_tmp/p.json"
got=$(attack "$tap_tmp/p.json"); [ "$got" = "refused 142" ]; ok $? "authtoken a number: refused ($got)"

grep -q "user 'mario': token time .* more than --time-skew-threshold 10" "$slog"
ok $? "the log names a stale token"
grep -q "user 'mario': wrong password" "$slog"; ok $? "the log names a wrong password"
grep -q "user 'peach': not in the authorized users file" "$slog"; ok $? "the log names an unknown user"
! grep -q "$secret\|verdi\|nope" "$slog"; ok $? "no password appears in the server's log"
IPERF3_PASSWORD=$secret expect_exit 0 "after the attacks the server still serves mario" \
	iperf3 -c 127.0.0.1 -p "$port" -t 1 --username mario --rsa-public-key-path "$pubkey"

# --- boardperf clients -> the locked boardperf serve ---
IPERF3_PASSWORD=$secret expect_exit 0 "boardperf tcp --username mario" "$bp" tcp -c 127.0.0.1 \
	-p "$port" -t 1 -J --username mario --rsa-public-key-path "$pubkey"
IPERF3_PASSWORD=$secret expect_exit 0 "boardperf udp -R --username mario" "$bp" udp -c 127.0.0.1 \
	-p "$port" -t 1 -b 10M -R -J --username mario --rsa-public-key-path "$pubkey"
IPERF3_PASSWORD=bad expect_fail 1 "boardperf tcp, wrong password: refused" "$bp" tcp \
	-c 127.0.0.1 -p "$port" -t 1 -J --username mario --rsa-public-key-path "$pubkey"
jq -e '.error.message | test("authentication failed")' <<<"$out" >/dev/null
ok $? "the JSON's error says authentication failed"
expect_fail 1 "boardperf tcp without --username: refused" "$bp" tcp -c 127.0.0.1 -p "$port" -t 1
grep -q "the server needs an iperf3 username (--username, --rsa-public-key-path)" <<<"$err"
ok $? "... saying what it needs"
expect_fail 1 "no IPERF3_PASSWORD and no terminal: one line, no prompt" \
	env -u IPERF3_PASSWORD setsid -w "$bp" tcp -c 127.0.0.1 -p "$port" -t 1 --username mario \
	--rsa-public-key-path "$pubkey" </dev/null
grep -q "no password: set IPERF3_PASSWORD" <<<"$err"; ok $? "... naming IPERF3_PASSWORD"
expect_fail 2 "--username without --rsa-public-key-path: usage error" "$bp" tcp -c 127.0.0.1 \
	-p "$port" --username mario
# port-ok: a usage error, refused before any bind
expect_fail 2 "serve --rsa-private-key-path without users: usage error" "$bp" serve -p 1 \
	--rsa-private-key-path "$key"
printf 'mario,abc\n' >"$tap_tmp/bad_users"
expect_fail 1 "serve with a broken users file: refused at start" "$bp" serve -p "$sport" \
	--rsa-private-key-path "$key" --authorized-users-path "$tap_tmp/bad_users"
grep -q "line 1: expected USER,SHA256" <<<"$err"; ok $? "... naming its line"

# --- boardperf client -> a locked stock iperf3 server ---
if ! iperf3 -h 2>&1 | grep -q -- --rsa-private-key-path; then
	skip "boardperf --username against a locked iperf3 -s" "this iperf3 has no authentication"
else
	i3log=$tap_tmp/iperf3-s.log
	iperf3 -s -p "$sport" --forceflush --rsa-private-key-path "$key" --authorized-users-path "$users" \
		>"$i3log" 2>&1 &
	pids+=($!)
	wait_log "$i3log" "Server listening"; ok $? "a locked stock iperf3 -s listens on $sport"
	IPERF3_PASSWORD=$secret expect_exit 0 "boardperf tcp --iperf3 --username against iperf3 -s" \
		"$bp" tcp --iperf3 -c 127.0.0.1 -p "$sport" -t 1 -J --username mario \
		--rsa-public-key-path "$pubkey"
	jq -e '[.metrics[] | select(.name == "receiver.bytes")][0].value > 1000000' <<<"$out" \
		>/dev/null; ok $? "the test ran against the stock server"
	IPERF3_PASSWORD=verdi expect_exit 0 "boardperf udp --iperf3 -R --username luigi" \
		"$bp" udp --iperf3 -c 127.0.0.1 -p "$sport" -t 1 -b 10M -R -J --username luigi \
		--rsa-public-key-path "$pubkey"
	IPERF3_PASSWORD=bad expect_fail 1 "boardperf, wrong password, against iperf3 -s: refused" \
		"$bp" tcp --iperf3 -c 127.0.0.1 -p "$sport" -t 1 --username mario \
		--rsa-public-key-path "$pubkey"
	grep -q "test authorization failed (iperf3 error 142)" <<<"$err"
	ok $? "boardperf names iperf3's refusal"
	expect_fail 1 "boardperf without --username against iperf3 -s: refused" \
		"$bp" tcp --iperf3 -c 127.0.0.1 -p "$sport" -t 1
	# Debian 12's iperf3 3.12 pads with PKCS#1 v1.5; OAEP (iperf3 3.17+) must not pass.
	i3ver=$(iperf3 --version | sed -n '1s/^iperf \([0-9]*\.[0-9]*\).*/\1/p')
	if awk -v v="$i3ver" 'BEGIN { split(v, a, "."); exit !(a[1] == 3 && a[2] < 17) }'; then
		IPERF3_PASSWORD=$secret expect_fail 1 "boardperf --rsa-padding oaep against iperf3 3.12: refused" \
		"$bp" tcp --iperf3 -c 127.0.0.1 -p "$sport" -t 1 --username mario \
		--rsa-public-key-path "$pubkey" --rsa-padding oaep
	else
		skip "--rsa-padding oaep refused by iperf3 $i3ver" "iperf3 3.17 and later pad with OAEP"
	fi
fi

echo "1..$tap_n"
exit $((tap_failed > 0))
