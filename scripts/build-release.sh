# Sourced by install.sh and bench.sh: builds toastd, toast-tail and toastctl
# for release, toastctl as a static executable (it starts in a third of the
# time of a dynamically linked one: docs/BENCHMARKS.md). Sets RELEASE_BIN
# (toastd, toast-tail, toast-bench) and TOASTCTL_BIN.
build_release() {
    swift build -c release "$@" 2>&1 | grep -Ev '^\[|^Building|^Compiling|^Write|^Planning' || true
    RELEASE_BIN="$(swift build -c release --show-bin-path)"
    # The linker warns that getpwuid_r and friends want the same glibc at run
    # time; toastctl calls none of them.
    swift build -c release --scratch-path .build-static --product toastctl -Xswiftc -static-executable 2>&1 \
        | grep -Ev '^\[|^Building|^Compiling|^Write|^Planning|statically linked|getpw|getgr|dlopen|mktemp' || true
    TOASTCTL_BIN="$(swift build -c release --scratch-path .build-static --show-bin-path)/toastctl"
    [ -x "$RELEASE_BIN/toastd" ] && [ -x "$TOASTCTL_BIN" ]
}
