#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# toastd's benchmarks (docs/BENCHMARKS.md): builds toastd, a static toastctl
# (as install.sh installs it), toast-bench and the C baselines in bench/,
# then runs every scenario and prints Markdown tables with ratios measured
# in this run.
#
#   bash scripts/bench.sh [--quick] [--with-dunst] [SCENARIO...]
#
#   --quick        fewer samples (a minute or two instead of about ten)
#   --with-dunst   also install dunst, Xvfb and notify-send, and compare with
#                  notify-send → dunst on a private D-Bus session bus; the
#                  memory section then also measures dunst and mako holding
#                  10,000 and 100,000 notifications (bench/peers-memory.sh,
#                  up to ten minutes more)
#   SCENARIO       oneshot, ingest, fanout, memory, scheduler, dbus, startup,
#                  rest, overlay
#                  (default: all; dbus needs --with-dunst; overlay runs
#                  toast-overlay beside mako under a headless sway)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-packages.sh
source scripts/build-release.sh

quick=() dunst=0 scenarios=()
for arg in "$@"; do
    case "$arg" in
        --quick) quick=(--quick) ;;
        --with-dunst) dunst=1 ;;
        *) scenarios+=("$arg") ;;
    esac
done
# toast-overlay's rows run in their own script (bench/overlay/overlay-bench.py).
overlay=0 rest=()
if [ "${#scenarios[@]}" -eq 0 ]; then
    overlay=1
else
    for scenario in "${scenarios[@]}"; do
        if [ "$scenario" = overlay ]; then overlay=1; else rest+=("$scenario"); fi
    done
fi
needs=(build bench)
((dunst)) && needs+=(dunst overlay)
((overlay)) && needs+=(overlay)
ensure_packages "${needs[@]}"

build_release --product toastd
# The swift-nio floor of the start-up benchmark, built, linked and stripped as toastd is.
release_flags toastd
static_cxx
quiet_build -c release --scratch-path .build-static-stdlib --product nio-echo --static-swift-stdlib \
    "${RELEASE_FLAGS[@]}" "${DYNAMIC_LINK[@]}" "${STATIC_CXX[@]}"
mkdir -p .build-bench
strip --strip-all -o .build-bench/nio-echo "$(swift build -c release --scratch-path .build-static-stdlib --show-bin-path | tail -n 1)/nio-echo"
swift build -c release --product toast-bench 2>&1 | grep -Ev '^\[|^Building|^Compiling|^Write|^Planning' || true
cc -O2 -Wall -Wextra -o .build-bench/oneshot bench/oneshot.c
cc -O2 -Wall -Wextra -D_GNU_SOURCE -o .build-bench/echo bench/echo.c
cc -O2 -Wall -Wextra -o .build-bench/notify-flood bench/notify-flood.c $(pkg-config --cflags --libs libsystemd)

work="$(mktemp -d)"
cleanup() {
    [ -n "${DUNST_PID:-}" ] && kill "$DUNST_PID" 2>/dev/null
    [ -n "${XVFB_PID:-}" ] && kill "$XVFB_PID" 2>/dev/null
    [ -n "${BUS_PID:-}" ] && kill "$BUS_PID" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT

peer=()
# The peers holding as many notifications as toastd holds toasts in the
# memory section, each on a bus and display of its own: before the dunst
# below starts (two dunst would share their pages, halving each one's PSS)
# and before any daemon of the rest scenario starts resting.
if ((dunst)) && { [ "${#scenarios[@]}" -eq 0 ] || [[ " ${rest[*]} " == *" memory "* ]]; }; then
    echo "bench: dunst and mako filling with notifications (bench/peers-memory.sh)..." >&2
    bash bench/peers-memory.sh .build-bench/notify-flood "$( ((${#quick[@]})) && echo 60 || echo 300)" 10000 100000 >"$work/peers"
    peer+=(--peer-memory "$work/peers")
fi
if ((dunst)); then
    # A private session bus whose service directory is empty, so that no
    # other notification server can be activated on it; dunst under Xvfb.
    mkdir -p "$work/services"
    sed -e "s|@BUS@|$work/bus|g" -e "s|@SERVICES@|$work/services|g" bench/session-bus.conf.in >"$work/bus.conf"
    read -r BUS_ADDRESS BUS_PID < <(dbus-daemon --config-file="$work/bus.conf" --fork --print-address=1 --print-pid=1 | paste -sd' ')
    export DBUS_SESSION_BUS_ADDRESS="$BUS_ADDRESS"
    # Xvfb picks a free display and writes its number once it accepts clients.
    Xvfb -displayfd 1 -nolisten tcp >"$work/display" 2>/dev/null &
    XVFB_PID=$!
    for _ in $(seq 100); do [[ "$(cat "$work/display")" =~ ^[0-9]+$ ]] && break; sleep 0.05; done
    DISPLAY=":$(cat "$work/display")" dunst >/dev/null 2>&1 &
    DUNST_PID=$!
    for _ in $(seq 50); do notify-send -t 1 ready 2>/dev/null && break; sleep 0.1; done
    peer+=(--notify-send "$(command -v notify-send)" --dunst-pid "$DUNST_PID")
fi

echo "# toastd benchmarks, $(date -u +%Y-%m-%d), $(nproc) cores, $(uname -r)"
echo
if [ "${#scenarios[@]}" -eq 0 ] || [ "${#rest[@]}" -gt 0 ]; then
    "$RELEASE_BIN/toast-bench" run "${quick[@]}" "${peer[@]}" \
        --toastd "$TOASTD_BIN" --toastd-dynamic "$RELEASE_BIN/toastd" --toastctl "$TOASTCTL_BIN" \
        --c-oneshot .build-bench/oneshot --c-echo .build-bench/echo --nio-echo .build-bench/nio-echo --socat "$(command -v socat)" \
        "${rest[@]}"
fi
if ((overlay)); then
    echo
    python3 bench/overlay/overlay-bench.py "${quick[@]}" --toastd "$TOASTD_BIN" --overlay "$OVERLAY_BIN" --toastctl "$TOASTCTL_BIN"
fi
