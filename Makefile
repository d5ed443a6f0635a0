# A thin layer over Meson: `make run` and `make test` do all the set-up on a fresh Debian 12
# machine (as root): they install what is missing, build, and run.

# Debian packages the build and the tests need.
DEPS := build-essential meson ninja-build pkg-config libssl-dev libjansson-dev liburing-dev jq \
	iperf3 iperf iproute2 ethtool iputils-ping nftables sockperf sysbench fio libhttp-parser-dev nginx

BUILD := build
ASAN_BUILD := build-asan
MESON_OPTS := -Dwerror=true
# ASan + UBSan; every UBSan finding aborts so that a test cannot pass over it.
ASAN_OPTS := -Db_sanitize=address,undefined -Db_lundef=false -Dwerror=true \
	-Dc_args=-fno-sanitize-recover=all -Dbuildtype=debug

.PHONY: all deps build build-asan run test test-unit test-asan clean

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
	meson setup $(ASAN_BUILD) $(ASAN_OPTS)

build: deps $(BUILD)/build.ninja
	ninja -C $(BUILD)

build-asan: deps $(ASAN_BUILD)/build.ninja
	ninja -C $(ASAN_BUILD)

run: build
	./$(BUILD)/boardperf run

# Every test, in the normal build and under ASan+UBSan; the last line is the summary.
test: build build-asan
	@rc=0; \
	meson test -C $(BUILD) --print-errorlogs || rc=1; \
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
		meson test -C $(ASAN_BUILD) --print-errorlogs || rc=1; \
	tests/summary.sh $(BUILD) $(ASAN_BUILD); \
	exit $$rc

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
