# A thin layer over Meson: `make run` and `make test` do all the set-up on a fresh Debian 12
# machine (as root): they install what is missing, build, and run.

# Debian packages, in four lists: each target installs only the ones it needs (as root,
# `apt-get install --no-install-recommends`, those missing), so that `make run` on a board
# gets the compiler and the libraries, not the test suite's browser, clang or nginx. The
# sizes of each on a fresh Debian 12 are in README.md ("The two commands").

# Building and running (`make build`, `make run`): the compiler, Meson, Ninja, pkg-config and
# the libraries meson.build links: libcrypto and libssl, jansson, liburing (disk --engine
# io_uring), libhttp-parser (boardperf http and serve --http; no pkg-config file) and
# libsqlite3 (the results database). `boardperf run` starts no other program (vcgencmd only
# where a Raspberry Pi has it).
BUILD_DEPS := build-essential meson ninja-build pkg-config libssl-dev libjansson-dev liburing-dev \
	libhttp-parser-dev libsqlite3-dev

# `make dist` on top (tools/dist.sh installs the cross compilers and qemu-user-static itself):
# zlib1g-dev for the static link sqlite3.pc asks for (Libs.private: -lz), jq for the version
# it reads from meson introspect.
DIST_DEPS := zlib1g-dev jq

# The tests on top (`make test`, test-cross, test-boards, test-vm, build-asan, build-tsan):
# clang and libclang-rt-14-dev: the ASan+UBSan (and libFuzzer) and TSan builds, lld their
# linker (an ASan build links ~130 programs: 90 s with lld, 110 with ld.bfd); jq: the tests
# read boardperf's JSON; iperf3, iperf (iperf2), sockperf, sysbench, fio: the stock tools the
# figures are checked against; iproute2, ethtool, iputils-ping, nftables: the veth rig
# (tests/rig: namespaces, offloads off, ping, packet counters); nginx: test_http's and
# test_listener's web server (their own instance on loopback); lintian, man-db and systemd:
# test_deb checks the package, renders its man page and verifies its unit; sqlite3: the
# results database's tests query it; prometheus, which ships promtool, and curl: test_prom
# scrapes serve --metrics and checks the export; prometheus-pushgateway: test_push's gateway; chromium: test_report renders the HTML
# report headless; strace: test_attack_flood counts the server's accept4 calls at the fd
# limit; openssl: test_cpu's `openssl speed`, test_attack_auth's and test_http's keys;
# procps: sysctl in the rig, pgrep (both in every Debian install, not in a minimal image).
TEST_DEPS := clang libclang-rt-14-dev lld jq iperf3 iperf sockperf sysbench fio iproute2 ethtool \
	iputils-ping nftables nginx lintian man-db systemd sqlite3 prometheus curl chromium strace \
	openssl procps ansible-core openssh-server prometheus-pushgateway

# The emulated boards and the VM on top (`make test-boards`, `make test-vm`): qemu-system
# for ARM and x86-64, cpio for their initramfs, busybox-static the VM's shell, hostapd,
# wpasupplicant and iw its Wi-Fi network. Installed before either starts: CI boots them side
# by side, and two apt-gets at once would collide.
QEMU_DEPS := qemu-system-arm qemu-system-x86 cpio busybox-static hostapd wpasupplicant iw

# The stock tools the benches compare with (`make bench`, bench/README.md): wrk and h2load
# (nghttp2-client) with nginx (bench/http.sh), iperf3 and iperf (tcp, udp, crr), sockperf
# (rr), sysbench and fio (disk), mbw (mem), openssl (cpu: openssl speed), netsniff-ng (udp:
# trafgen), nftables, iproute2 and ethtool (udp's rig, as the tests'; ss), procps (pgrep,
# sysctl), jq (every bench reads boardperf's JSON), time (/usr/bin/time: the tools' CPU),
# sqlite3 (save); with BUILD_DEPS, as the benches measure build/boardperf. A bench that lacks
# one stops and names it and this target.
BENCH_DEPS := wrk nghttp2-client nginx iperf3 iperf sockperf sysbench fio mbw openssl netsniff-ng \
	nftables iproute2 ethtool procps jq time sqlite3

# $(call apt_install,PACKAGES): installs those of PACKAGES that are not installed (as root).
define apt_install
@missing=$$(for p in $(1); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null \
	| grep -q '^install ok installed' || echo $$p; done); \
if [ -n "$$missing" ]; then \
	echo "installing:" $$missing; \
	if [ "$$(id -u)" != 0 ]; then echo "run as root to install:" $$missing >&2; exit 1; fi; \
	export DEBIAN_FRONTEND=noninteractive; \
	apt-get update -qq && apt-get install -y -qq --no-install-recommends $$missing; \
fi
endef

BUILD := build
ASAN_BUILD := build-asan
TSAN_BUILD := build-tsan
MESON_OPTS := -Dwerror=true
# ASan + UBSan with clang; every UBSan finding aborts so that a test cannot pass over it.
# Clang, so that the same build is also the libFuzzer build (tests/fuzz/meson.build): CI
# fuzzes its targets (tests/fuzz/run.sh build-asan) instead of building a fourth time.
ASAN_OPTS := -Db_sanitize=address,undefined -Db_lundef=false -Dwerror=true \
	-Dc_args=-fno-sanitize-recover=all -Dbuildtype=debug -Dc_link_args=-fuse-ld=lld
# ThreadSanitizer: clang's runtime (libclang-rt-14-dev). Optimised (-O2 -g, the default), as
# TSan's authors advise. It builds only what the unit suite runs (tools/ci/unit_targets.sh):
# build-asan has clang's warnings under -Werror over every target already.
TSAN_OPTS := -Db_sanitize=thread -Db_lundef=false -Dwerror=true -Dc_link_args=-fuse-ld=lld

# What each build runs, and why: tools/ci/test.sh (`make test`) and docs/CI.md.
TEST_BUILDS := $(BUILD) $(ASAN_BUILD) $(TSAN_BUILD)

.PHONY: all deps deps-build deps-dist deps-test deps-qemu deps-bench build build-asan build-tsan run test dist \
	test-cross test-boards test-vm bench clean

all: build

# deps: everything, for CI (.ci/run) and a machine that does it all.
deps: deps-build deps-dist deps-test deps-qemu deps-bench

deps-build:
	$(call apt_install,$(BUILD_DEPS))

deps-dist: deps-build
	$(call apt_install,$(DIST_DEPS))

deps-test: deps-build
	$(call apt_install,$(TEST_DEPS))

deps-qemu:
	$(call apt_install,$(QEMU_DEPS))

deps-bench: deps-build
	$(call apt_install,$(BENCH_DEPS))

$(BUILD)/build.ninja:
	meson setup $(BUILD) $(MESON_OPTS)

$(ASAN_BUILD)/build.ninja:
	CC=clang meson setup $(ASAN_BUILD) $(ASAN_OPTS)

$(TSAN_BUILD)/build.ninja:
	CC=clang meson setup $(TSAN_BUILD) $(TSAN_OPTS)

build: deps-build $(BUILD)/build.ninja
	ninja -C $(BUILD)

build-asan: deps-test $(ASAN_BUILD)/build.ninja
	ninja -C $(ASAN_BUILD)

build-tsan: deps-test $(TSAN_BUILD)/build.ninja
	ninja -C $(TSAN_BUILD) $$(tools/ci/unit_targets.sh $(TSAN_BUILD))

run: build
	./$(BUILD)/boardperf run

# Static, stripped binaries for amd64, arm64, armhf and armel in dist/, with SHA256SUMS
# (tools/dist.sh: cross compilers, target libraries and qemu-user come with it).
dist: deps-dist
	tools/dist.sh $(ARCHES)

# The unit tests of the arm64, armhf and armel builds (build-dist/ARCH) under qemu-user.
test-cross: deps-test deps-dist
	tools/cross/test.sh $(ARCHES)

# Emulated boards under qemu-system (tools/boards/run.sh): a Raspberry Pi 3 B and 2 B, an
# Orange Pi PC and ARMv7 and ARMv8 virt machines boot Debian's kernels once each and run info,
# cpu, mem, disk, tcp, udp, rr, tcp --sctp and their GPIO checks; the results are checked from here into
# build-dist/boards/meson-logs/testlog.json.
test-boards: deps-test deps-dist deps-qemu
	tools/boards/run.sh $(BOARDS)

# What this machine's kernel lacks (SCTP, 8021q, Wi-Fi), in an x86-64 VM with Debian's
# generic kernel under qemu-system-x86_64 (tools/vm/run.sh): one boot runs tcp/rr/crr --sctp,
# stock iperf3 --sctp against serve and the reverse, bad input, tcp and udp over a VLAN, and
# info and tcp over two mac80211_hwsim radios (WPA2); checked from here into
# build-dist/vm/meson-logs/testlog.json. The gcc build's binary when it is built.
test-vm: deps-test deps-dist deps-qemu
	tools/vm/run.sh

# The three test builds (gcc, ASan+UBSan, TSan), then each one's tests (tools/ci/test.sh):
# each step's time beside its budget, then the summary over all three.
test: deps-test
	@tools/ci/test.sh

# The benches (bench/README.md): the stock tools installed, then each of BENCHES in turn
# (default: all; `make bench BENCHES="http tcp"` for some), each ending with its median
# ratios; some need root (udp: the veth rig; disk: its file set). Loopback only; minutes each.
BENCHES ?= $(filter-out lib nginx_bench,$(basename $(notdir $(wildcard bench/*.sh))))
bench: deps-bench build
	@rc=0; for b in $(BENCHES); do echo "== bench/$$b.sh"; bash bench/$$b.sh || rc=1; done; exit $$rc

clean:
	rm -rf $(TEST_BUILDS) build-dist dist
