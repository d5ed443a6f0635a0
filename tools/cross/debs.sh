# shellcheck shell=bash
# Sourced by tools/cross/sysroot.sh and tools/boards/fetch.sh: Debian packages of a foreign
# architecture, fetched with apt lists and a dpkg status of their own under CACHE/apt and
# unpacked with dpkg-deb -x. It never adds a foreign architecture to this machine's dpkg
# (`dpkg --add-architecture` made the host's `apt-get update` fail on an armhf index
# mismatch, and Multi-Arch: same packages must then match the host's versions). The .debs
# stay in CACHE/debs/ARCH, so a second run downloads nothing.

# debs_init CACHE: apt_opts for the private apt of CACHE, its folders, and one index fetch
# per cache (a day old at most), shared by every architecture.
debs_init() {
	local cache=$1
	apt_opts=(-o "Dir::State::Lists=$cache/apt/lists" -o "Dir::Cache=$cache/apt/cache"
		-o "Dir::State::Status=$cache/apt/status" -o Debug::NoLocking=1 -o APT::Sandbox::User=root
		-o Acquire::Languages=none -o APT::Architecture=armhf -o APT::Architectures::=armhf
		-o APT::Architectures::=arm64 -o APT::Architectures::=armel)
	mkdir -p "$cache/apt/lists/partial" "$cache/apt/cache/archives/partial"
	touch "$cache/apt/status"
	if [ -z "$(find "$cache/apt/lists" -maxdepth 1 -name '*Packages*' -mmin -1440 -print -quit)" ]; then
		apt-get "${apt_opts[@]}" -qq update || debs_partial "$cache"
	fi
}

# debs_partial CACHE: after a failed index fetch, go on when every architecture has its
# release's main index. A mirror mid-sync fails one index of several (CI, runs 28 and stop
# 43: bookworm-security's armhf Packages "File has unexpected size ... Mirror sync in
# progress?") and apt keeps the others; the release's main archive holds every package the
# sysroots and kernels need, the other suites only newer versions. The lists are dated 23
# hours back: the rest of this run (every leg calls this) takes them as they are, a run an
# hour later fetches again (dated 2 days back, CI run 30 fetched and failed 5 times over:
# its boards step took 284 s against 150).
debs_partial() {
	local cache=$1 a
	for a in armhf arm64 armel; do
		ls "$cache/apt/lists" | grep -Eq "_dists_[a-z]+_main_binary-${a}_Packages" || {
			echo "debs: apt fetched no index of the release's main archive for $a (above)" >&2
			return 1
		}
	done
	touch -d '23 hours ago' "$cache"/apt/lists/*Packages*
	echo "debs: apt's index fetch failed in part (above): going on with the release's main indexes" >&2
}

# debs_fresh CACHE DEST: true when DEST was unpacked after the private apt's last index
# fetch: the candidates it holds are still the candidates, so nothing needs resolving (apt's
# resolution over three architectures' lists takes 3-5 s a call; CI asks for the same
# sysroots and kernels again in each leg).
debs_fresh() {
	local newest
	[ -f "$2/.packages" ] || return 1
	newest=$(ls -t "$1"/apt/lists/*Packages* 2>/dev/null | head -1)
	[ -n "$newest" ] && [ "$2/.packages" -nt "$newest" ]
}

# debs_unpack WHO CACHE ARCH DEST PKG...: the candidate .deb of every PKG for ARCH (one apt
# call: the file names hold the versions), downloaded when not in CACHE/debs/ARCH, unpacked
# into DEST afresh, unless DEST/.packages says it holds exactly those already. WHO names the
# caller in its messages.
debs_unpack() {
	local who=$1 cache=$2 arch=$3 dest=$4 debs missing='' d
	shift 4
	! debs_fresh "$cache" "$dest" || return 0
	mkdir -p "$cache/debs/$arch"
	debs=$(apt-get "${apt_opts[@]}" -qq download --print-uris $(printf "%s:$arch " "$@") |
		awk '{print $2}' | sort)
	[ "$(echo "$debs" | wc -w)" = "$#" ] ||
		{ echo "$who: the archive lacks some of $* for $arch" >&2; return 1; }
	if [ -f "$dest/.packages" ] && [ "$(cat "$dest/.packages")" = "$debs" ]; then
		return 0
	fi
	for d in $debs; do
		[ -f "$cache/debs/$arch/$d" ] || missing="$missing ${d%%_*}:$arch"
	done
	[ -z "$missing" ] || (cd "$cache/debs/$arch" && apt-get "${apt_opts[@]}" -qq download $missing)
	rm -rf "$dest"
	mkdir -p "$dest"
	for d in $debs; do
		dpkg-deb -x "$cache/debs/$arch/$d" "$dest"
	done
	echo "$debs" >"$dest/.packages"
	echo "$who $arch:" $debs
}
