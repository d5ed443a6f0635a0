# A thin layer over Meson: `make run` and `make test` do all the set-up on a fresh Debian 12
# machine (as root): they install what is missing, build, and run.

# Debian packages the build and the tests need (lintian, man-db and systemd: test_deb checks
# the package, renders its man page and verifies its unit; libsqlite3-dev the results
# database, sqlite3 its tests' queries, zlib1g-dev the static link sqlite3.pc asks for;
# prometheus, which ships promtool, and curl: test_prom scrapes serve --metrics and checks
# the export; chromium: test_report renders the HTML report headless; strace:
# test_attack_flood counts the server's accept4 calls at the fd limit).
DEPS := build-essential meson ninja-build pkg-config libssl-dev libjansson-dev liburing-dev jq \
	iperf3 iperf iproute2 ethtool iputils-ping nftables sockperf sysbench fio libhttp-parser-dev nginx \
	clang libclang-rt-14-dev lintian man-db systemd libsqlite3-dev sqlite3 zlib1g-dev chromium \
	prometheus curl netsniff-ng strace

BUILD := build
ASAN_BUILD := build-asan
TSAN_BUILD := build-tsan
MESON_OPTS := -Dwerror=true
# ASan + UBSan with clang; every UBSan finding aborts so that a test cannot pass over it.
# Clang, so that the same build is also the libFuzzer build (tests/fuzz/meson.build): CI
# fuzzes its targets (tests/fuzz/run.sh build-asan) instead of building a fourth time.
ASAN_OPTS := -Db_sanitize=address,undefined -Db_lundef=false -Dwerror=true \
	-Dc_args=-fno-sanitize-recover=all -Dbuildtype=debug
# ThreadSanitizer: clang's runtime (libclang-rt-14-dev). Optimised (-O2 -g, the default), as
# TSan's authors advise. With build-asan, clang's warnings under -Werror over every target.
TSAN_OPTS := -Db_sanitize=thread -Db_lundef=false -Dwerror=true

# What each build runs, and why: tools/ci/test.sh (`make test`) and docs/CI.md.
TEST_BUILDS := $(BUILD) $(ASAN_BUILD) $(TSAN_BUILD)

.PHONY: all deps build build-asan build-tsan run test dist test-cross test-boards test-vm clean

all: build

deps:
	@missing=$$(for p in $(DEPS); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null \
		| grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing: $$missing"; \
		if [ "$$(id -u)" != 0 ]; then echo "run as root to install: $$missing" >&2; exit 1; fi; \
		export DEBIAN_FRONTEND=noninteractive; \
		apt-get update -qq && apt-get install -y -qq --no-install-recommends $$missing; \
	fi

$(BUILD)/build.ninja:
	meson setup $(BUILD) $(MESON_OPTS)

$(ASAN_BUILD)/build.ninja:
	CC=clang meson setup $(ASAN_BUILD) $(ASAN_OPTS)

$(TSAN_BUILD)/build.ninja:
	CC=clang meson setup $(TSAN_BUILD) $(TSAN_OPTS)

build: deps $(BUILD)/build.ninja
	ninja -C $(BUILD)

build-asan: deps $(ASAN_BUILD)/build.ninja
	ninja -C $(ASAN_BUILD)

build-tsan: deps $(TSAN_BUILD)/build.ninja
	ninja -C $(TSAN_BUILD)

run: build
	./$(BUILD)/boardperf run

# Static, stripped binaries for amd64, arm64, armhf and armel in dist/, with SHA256SUMS
# (tools/dist.sh: cross compilers, target libraries and qemu-user come with it).
dist: deps
	tools/dist.sh $(ARCHES)

# The unit tests of the arm64, armhf and armel builds (build-dist/ARCH) under qemu-user.
test-cross: deps
	tools/cross/test.sh $(ARCHES)

# Emulated boards under qemu-system (tools/boards/run.sh): a Raspberry Pi 3 B and 2 B, an
# Orange Pi PC and ARMv7 and ARMv8 virt machines boot Debian's kernels once each and run info,
# cpu, mem, disk, tcp, udp, rr, tcp --sctp and their GPIO checks; the results are checked from here into
# build-dist/boards/meson-logs/testlog.json.
test-boards: deps
	tools/boards/run.sh $(BOARDS)

# What this machine's kernel lacks (SCTP), in an x86-64 VM with Debian's cloud kernel under
# qemu-system-x86_64 (tools/vm/run.sh): one boot runs tcp/rr/crr --sctp, stock iperf3 --sctp
# against serve and the reverse, and bad input; checked from here into
# build-dist/vm/meson-logs/testlog.json. The gcc build's binary when it is built.
test-vm: deps
	tools/vm/run.sh

# The three test builds (gcc, ASan+UBSan, TSan), then each one's tests (tools/ci/test.sh):
# each step's time beside its budget, then the summary over all three.
test: deps
	@tools/ci/test.sh

clean:
	rm -rf $(TEST_BUILDS) build-dist dist
