# SPDX-License-Identifier: Apache-2.0
# Sourced by install.sh and bench.sh: builds toastd, toast-tail and toastctl
# for release, toastctl as a static executable (it starts in a third of the
# time of a dynamically linked one: docs/BENCHMARKS.md) and toastd with the
# Swift libraries linked in (--static-swift-stdlib: idle, it is 6 MiB
# smaller, section 4 of docs/BENCHMARKS.md). Sets RELEASE_BIN (toast-tail,
# toast-bench, and a toastd linked the default way), TOASTD_BIN and
# TOASTCTL_BIN, and OVERLAY_BIN (toast-overlay, linked as toastd is).
build_release() {
    quiet_build -c release "$@"
    RELEASE_BIN="$(swift build -c release --show-bin-path)"
    quiet_build -c release --scratch-path .build-static-stdlib --product toastd --static-swift-stdlib
    TOASTD_BIN="$(swift build -c release --scratch-path .build-static-stdlib --show-bin-path)/toastd"
    # toast-overlay the same way: it stays resident for the whole session.
    quiet_build -c release --scratch-path .build-static-stdlib --product toast-overlay --static-swift-stdlib
    OVERLAY_BIN="$(swift build -c release --scratch-path .build-static-stdlib --show-bin-path)/toast-overlay"
    # The linker warns that getpwuid_r and friends want the same glibc at run
    # time; toastctl calls none of them.
    quiet_build -c release --scratch-path .build-static --product toastctl -Xswiftc -static-executable
    TOASTCTL_BIN="$(swift build -c release --scratch-path .build-static --show-bin-path)/toastctl"
    [ -x "$RELEASE_BIN/toastd" ] && [ -x "$TOASTD_BIN" ] && [ -x "$TOASTCTL_BIN" ]
}

# `swift build "$@"`, showing only what matters (errors, warnings); fails
# when the build fails, with its whole log on stderr.
quiet_build() {
    local log status=0
    log="$(mktemp)"
    swift build "$@" >"$log" 2>&1 || status=$?
    if [ "$status" -ne 0 ]; then
        cat "$log" >&2
        rm -f "$log"
        echo "the build failed (swift build $*)" >&2
        return "$status"
    fi
    grep -Ev '^\[|^Building|^Compiling|^Write|^Planning|statically linked|getpw|getgr|dlopen|mktemp|^Build (of product .*)?complete' "$log" || true
    rm -f "$log"
}
