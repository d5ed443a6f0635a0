#!/usr/bin/env bash
# One .deb from one static binary: boardperf_VERSION_ARCH.deb with the binary, boardperf(1),
# bash completion, boardperf-serve.service, the copyright and changelog, and the manual
# (README.md and docs/*.md, compressed) (dpkg-deb, no debhelper: the binary is already built
# by tools/dist.sh).
#   usage: tools/deb/build.sh ARCH BINARY HELPBIN VERSION OUTDIR
#   HELPBIN: a boardperf of the same sources as BINARY that this machine runs (BINARY itself,
#   or for an ARM one BINARY under qemu-user: tools/dist.sh). It writes the man page and the
#   completion from its own option tables (`boardperf --man DATE`, `boardperf
#   --bash-completion`: src/cli/help.h), the same bytes on any architecture and terminal.
set -euo pipefail
usage="usage: build.sh ARCH BINARY HELPBIN VERSION OUTDIR"
arch=${1:?$usage} bin=${2:?$usage} helpbin=${3:?$usage} version=${4:?$usage} out=${5:?$usage}
here=$(cd "$(dirname "$0")" && pwd)
case $arch in amd64 | arm64 | armhf | armel) ;;
*) echo "build.sh: unknown architecture '$arch' (expected amd64, arm64, armhf or armel)" >&2; exit 2 ;;
esac
[ -x "$bin" ] || { echo "build.sh: binary '$bin' is not an executable file" >&2; exit 2; }
# The changelog's top entry is the version packaged: a stale one would mislabel the package.
top=$(sed -n '1s/^boardperf (\([^)]*\)).*/\1/p' "$here/changelog")
[ "$top" = "$version" ] ||
	{ echo "build.sh: tools/deb/changelog's top entry is '$top', not version '$version'" >&2; exit 1; }
# The changelog's date is the man page's and every file's time stamp (reproducible builds).
date=$(sed -n 's/^ -- .*>  //p' "$here/changelog" | head -1)
epoch=$(date -d "$date" +%s)
day=$(date -u -d "@$epoch" +%F)

root=$(mktemp -d "${TMPDIR:-/tmp}/boardperf-deb.XXXXXX")
trap 'rm -rf "$root"' EXIT
chmod 755 "$root"
doc=$root/usr/share/doc/boardperf
install -d "$root/DEBIAN" "$root/usr/bin" "$root/usr/share/man/man1" \
	"$root/usr/share/bash-completion/completions" "$root/lib/systemd/system" "$doc/docs"
install -m 755 "$bin" "$root/usr/bin/boardperf"
# The man page names HELPBIN's version: it must be the one packaged.
helpver=$("$helpbin" --version | sed -n '1s/^boardperf \([^ ]*\) .*/\1/p')
[ "$helpver" = "$version" ] ||
	{ echo "build.sh: HELPBIN '$helpbin' is boardperf '$helpver', not version '$version'" >&2; exit 1; }
"$helpbin" --man "$day" | gzip -9n >"$root/usr/share/man/man1/boardperf.1.gz"
"$helpbin" --bash-completion >"$root/usr/share/bash-completion/completions/boardperf"
install -m 644 "$here/boardperf-serve.service" "$root/lib/systemd/system/"
install -m 644 "$here/copyright" "$doc/copyright"
gzip -9nc "$here/changelog" >"$doc/changelog.gz"
gzip -9nc "$here/../../README.md" >"$doc/README.md.gz"
for page in "$here"/../../docs/*.md; do
	gzip -9nc "$page" >"$doc/docs/$(basename "$page").gz"
done
install -d "$root/usr/share/lintian/overrides"
install -m 644 "$here/lintian-overrides" "$root/usr/share/lintian/overrides/boardperf"
chmod 644 "$root/usr/share/bash-completion/completions/boardperf" "$doc"/*.gz "$doc"/docs/*.gz \
	"$root/usr/share/man/man1/boardperf.1.gz"

size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
cat >"$root/DEBIAN/control" <<CONTROL
Package: boardperf
Version: $version
Architecture: $arch
Maintainer: $(sed -n 's/^ -- \(.*>\)  .*/\1/p' "$here/changelog" | head -1)
Installed-Size: $size
Section: net
Priority: optional
Description: network and board benchmark for single-board computers
 One static binary that measures a Linux board (CPU crypto speed, memory
 bandwidth and latency, storage I/O, a hardware inventory) and the network
 around it: TCP and UDP throughput, RFC 2544, request/response latency,
 connections per second and HTTP, against its own server or iperf3.
 .
 boardperf-serve.service runs the server with its default limits under a
 user of its own and no capabilities.
CONTROL
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z | xargs -0 md5sum) \
	>"$root/DEBIAN/md5sums"
chmod 644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"
find "$root" -exec touch -h -d "@$epoch" {} +
mkdir -p "$out"
deb=$out/boardperf_${version}_$arch.deb
SOURCE_DATE_EPOCH=$epoch dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "$deb"
