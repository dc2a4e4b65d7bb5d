#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# toast-overlay's toolkit, measured (issue #41): the same card drawn by
# wayland-client + cairo + pango (raw-card.c, with toast-overlay's layer-shell binding,
# Sources/COverlay/layer-shell.c, written from the protocol's specification) and by GTK 3 + gtk-layer-shell
# (gtk-card.c), beside mako showing one notification, each alone under one
# headless sway. Prints PSS and anonymous memory (/proc/PID/smaps_rollup),
# wakeups in 10 s at rest, and whether a screenshot (grim) shows the card.
#
#   bash bench/overlay/measure.sh        (as root: runs sway and the clients as uid 1000)
#   KEEP_SHOTS=DIR bash bench/overlay/measure.sh   also keeps each screenshot
set -euo pipefail
cd "$(dirname "$0")"
work="$(mktemp -d /tmp/toast-overlay-bench-XXXXXX)"
user=1000
[ "$(id -u)" -eq 0 ] || user="$(id -u)"
chown "$user:$user" "$work"; chmod 700 "$work"
cc -O2 -Wall -I../../Sources/COverlay -o "$work/raw-card" raw-card.c ../../Sources/COverlay/layer-shell.c $(pkg-config --cflags --libs wayland-client cairo pangocairo)
cc -O2 -Wall -o "$work/gtk-card" gtk-card.c $(pkg-config --cflags --libs gtk+-3.0 gtk-layer-shell-0)
chmod 755 "$work/raw-card" "$work/gtk-card"
as_user() {
    if [ "$(id -u)" -eq 0 ]; then
        setpriv --reuid="$user" --regid="$user" --clear-groups env -i HOME="$work" XDG_RUNTIME_DIR="$work" \
            WAYLAND_DISPLAY=wayland-1 PATH=/usr/bin:/bin DBUS_SESSION_BUS_ADDRESS="${BUS:-}" "$@"
    else
        env -i HOME="$work" XDG_RUNTIME_DIR="$work" WAYLAND_DISPLAY=wayland-1 PATH=/usr/bin:/bin DBUS_SESSION_BUS_ADDRESS="${BUS:-}" "$@"
    fi
}
sed -e "s|@BUS@|$work/bus|g" -e "s|@SERVICES@|$work/services|g" ../session-bus.conf.in >"$work/bus.conf"
chmod 644 "$work/bus.conf"
read -r BUS BUS_PID < <(as_user dbus-daemon --config-file="$work/bus.conf" --fork --print-address=1 --print-pid=1 | paste -sd' ')
( exec env WLR_BACKENDS=headless WLR_LIBINPUT_NO_DEVICES=1 WLR_RENDERER=pixman setpriv --reuid="$user" --regid="$user" --clear-groups \
    env HOME="$work" XDG_RUNTIME_DIR="$work" WLR_BACKENDS=headless WLR_LIBINPUT_NO_DEVICES=1 WLR_RENDERER=pixman sway -c /dev/null ) >/dev/null 2>&1 &
SWAY=$!
trap 'kill $SWAY $BUS_PID 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 200); do [ -S "$work/wayland-1" ] && break; sleep 0.05; done

wakeups() {  # context switches of every thread of $1
    local total=0
    for status in /proc/"$1"/task/*/status; do
        total=$((total + $(awk '/ctxt_switches/ {sum += $2} END {print sum}' "$status")))
    done
    echo "$total"
}
memory() { awk '/^Pss:/ {pss=$2} /^Anonymous:/ {anon=$2} END {printf "%.1f | %.1f", pss/1024, anon/1024}' /proc/"$1"/smaps_rollup; }
green_at_top() {  # the card's green at the top of the screenshot
    as_user grim "$work/shot.png"
    [ -z "${KEEP_SHOTS:-}" ] || cp "$work/shot.png" "$KEEP_SHOTS/$program.png"
    convert "$work/shot.png" -crop 1x1+640+40 -depth 8 txt:- | grep -q "#2[0-9A-F]8[0-9A-F]2[0-9A-F]" && echo yes || echo no
}

echo "| program | PSS MiB | anonymous MiB | wakeups in 10 s at rest | card on screen |"
echo "|---|---|---|---|---|"
measure() {  # name, pid
    sleep 2
    local before after
    before=$(wakeups "$2"); sleep 10; after=$(wakeups "$2")
    echo "| $1 | $(memory "$2") | $((after - before)) | ${3:-} |"
}
for program in raw-card gtk-card; do
    as_user "$work/$program" >"$work/$program.out" 2>/dev/null &
    pid=$!
    for _ in $(seq 100); do grep -q drawn "$work/$program.out" && break; sleep 0.05; done
    shown=$(green_at_top)
    measure "$program" "$(pgrep -n -f "$work/$program")" "$shown"
    kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true
done
as_user mako >/dev/null 2>&1 &
for _ in $(seq 100); do as_user makoctl list >/dev/null 2>&1 && break; sleep 0.05; done
as_user notify-send -t 0 "CI" "All 64 tests passed." || true
measure "mako, one notification" "$(pgrep -n -x mako)" "(its own card)"
