#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The peers' rows of scripts/bench.sh's memory section: dunst (under Xvfb)
# and mako (under a headless sway), each alone on a private session bus,
# idle and then holding COUNT notifications that never expire, as
# toast-bench fills toastd with indefinite toasts. bench/notify-flood.c
# sends them. Prints one line a measurement, for toast-bench --peer-memory:
#
#   LABEL <TAB> PSS KiB <TAB> anonymous KiB <TAB> RSS KiB <TAB> NOTE
#
#   bash bench/peers-memory.sh NOTIFY-FLOOD SECONDS COUNT...
#
# SECONDS bounds how long each peer is given to take its notifications:
# neither is built for this many (dunst takes about 6 ms a notification,
# and mako slows as its list grows), and a row that ran out of time says how
# many it holds. The peers run one after the other: mako draws every
# notification as it arrives, and when its compositor falls behind (sway
# sharing two cores with dunst and Xvfb) its Wayland buffer fills and it
# exits ("Error sending request: Resource temporarily unavailable"), at
# 8,000 to 54,000 held in three runs side by side; alone, it still did in
# two runs of three. Put in do-not-disturb instead (mako's mode with
# `invisible=1`; `dunstctl set-paused true`), both took longer to fill:
# mako 29 s for 10,000, at 3.5 KB a notification, and dunst 2,346 in 40 s.
#
# dunst runs with Debian's configuration but `notification_limit = 5`
# (mako's `max-visible` default): with Debian's 0, every notification shown
# is laid out again at each one that arrives, and 1,000 took 146 s, 744 of
# their calls timing out. mako runs with its defaults.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
flood="$(realpath "$1")" seconds="$2"
shift 2
counts=("$@")
work="$(mktemp -d /tmp/toast-peers-XXXXXX)"
user=1000
[ "$(id -u)" -eq 0 ] || user="$(id -u)"
chown "$user:$user" "$work"
chmod 700 "$work"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

as_user() {  # a command as $user, with nothing of this environment but the named
    if [ "$(id -u)" -eq 0 ]; then
        setpriv --reuid="$user" --regid="$user" --clear-groups env -i HOME="$work" XDG_RUNTIME_DIR="$work" PATH=/usr/bin:/bin "$@"
    else
        env -i HOME="$work" XDG_RUNTIME_DIR="$work" PATH=/usr/bin:/bin "$@"
    fi
}
started() {  # the pid a command started by spawn() wrote to $work/$1.pid
    for _ in $(seq 200); do [ -s "$work/$1.pid" ] && break; sleep 0.05; done
    cat "$work/$1.pid"
}
spawn() {  # spawn NAME [VAR=VALUE...] COMMAND...: as_user in the background, its pid in $work/NAME.pid
    local name="$1" assignments=()
    shift
    while [[ "$1" == *=* ]]; do assignments+=("$1"); shift; done
    as_user "${assignments[@]}" sh -c 'echo $$ >"$0"; exec "$@"' "$work/$name.pid" "$@" &
    pids+=("$(started "$name")")
}
bus() {  # a private session bus named $1: prints its address and pid
    sed -e "s|@BUS@|$work/$1.bus|g" -e "s|@SERVICES@|$work/$1.services|g" "$here/session-bus.conf.in" >"$work/$1.conf"
    chmod 644 "$work/$1.conf"
    as_user dbus-daemon --config-file="$work/$1.conf" --fork --print-address=1 --print-pid=1 | paste -sd' '
}
grouped() { sed ':a;s/\B[0-9]\{3\}\>/,&/;ta' <<<"$1"; }  # 100000 → 100,000
memory() {  # PSS, anonymous, RSS of pid $1 in KiB; nothing once it has exited
    awk '/^Pss:/ {p=$2} /^Anonymous:/ {a=$2} /^Rss:/ {r=$2} END {if (NR) printf "%d\t%d\t%d", p, a, r}' "/proc/$1/smaps_rollup" 2>/dev/null || true
}

# Fills peer $1 (pid $2, bus $3), printing its rows.
fill() {
    local name="$1" pid="$2" address="$3" held=0 started now left result sent errors count idle
    sleep 1
    idle="$(memory "$pid")"
    [ -n "$idle" ] || { printf '%s idle\t\t\t\tnot running\n' "$name"; return; }
    printf '%s idle\t%s\t\n' "$name" "$idle"
    started=$SECONDS
    for count in "${counts[@]}"; do
        left=$((seconds - (SECONDS - started)))
        ((left > 0)) || break
        result="$(as_user DBUS_SESSION_BUS_ADDRESS="$address" "$flood" $((count - held)) 64 "$left" "$held" 2>/dev/null || true)"
        sent="$(awk '{print $2}' <<<"$result")" errors="$(awk '{print $6}' <<<"$result")"
        [ -n "$sent" ] || { printf '%s, %s queued\t\t\t\tnotify-flood failed\n' "$name" "$count"; return; }
        held=$((held + sent - errors))
        sleep 0.3
        now="$(memory "$pid")"
        if [ -z "$now" ]; then
            printf '%s, %s queued\t\t\t\texited holding %s\n' "$name" "$(grouped "$count")" "$(grouped "$held")"
            return
        fi
        local note="" per
        per=$(( ($(cut -f2 <<<"$now") - $(cut -f2 <<<"$idle")) * 1024 / (held > 0 ? held : 1) ))
        note="$(grouped "$per") B anonymous a notification; filled in $((SECONDS - started)) s"
        if ((held < count)); then
            note="$note; holds $(grouped "$held") of $(grouped "$count"): the ${seconds} s ran out"
            ((errors == 0)) || note="$note, $errors calls failed"
        fi
        printf '%s, %s queued\t%s\t%s\n' "$name" "$(grouped "$count")" "$now" "$note"
        ((held == count)) || break
    done
}

# Waits for the peer on bus $1 to answer one notification, which goes at
# once: each is then idle as the D-Bus section's dunst is, having drawn one
# (its fonts loaded: one that has never drawn shows a few MiB less PSS).
shown_one() {
    for _ in $(seq 50); do
        as_user DBUS_SESSION_BUS_ADDRESS="$1" notify-send -t 1 ready >/dev/null 2>&1 && return
        sleep 0.1
    done
}
# Stops everything started so far: each peer is measured alone, since pages
# shared with another process (pango's, cairo's, fontconfig's caches) count
# half in each one's PSS.
stop_all() {
    for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    pids=()
}

# dunst under Xvfb.
read -r dunst_bus dunst_bus_pid < <(bus dunst)
pids+=("$dunst_bus_pid")
if [ -f /etc/xdg/dunst/dunstrc ]; then
    sed 's/^\( *notification_limit *=\).*/\1 5/' /etc/xdg/dunst/dunstrc >"$work/dunstrc"
else
    printf '[global]\n    notification_limit = 5\n' >"$work/dunstrc"
fi
chmod 644 "$work/dunstrc"
spawn Xvfb Xvfb -displayfd 1 -nolisten tcp >"$work/display" 2>/dev/null
for _ in $(seq 100); do [[ "$(cat "$work/display")" =~ ^[0-9]+$ ]] && break; sleep 0.05; done
spawn dunst DISPLAY=":$(cat "$work/display")" DBUS_SESSION_BUS_ADDRESS="$dunst_bus" dunst -config "$work/dunstrc" >/dev/null 2>&1
shown_one "$dunst_bus"
fill dunst "$(started dunst)" "$dunst_bus"
stop_all

# mako under a headless sway.
read -r mako_bus mako_bus_pid < <(bus mako)
pids+=("$mako_bus_pid")
spawn sway WLR_BACKENDS=headless WLR_LIBINPUT_NO_DEVICES=1 WLR_RENDERER=pixman sway -c /dev/null >/dev/null 2>&1
for _ in $(seq 200); do [ -S "$work/wayland-1" ] && break; sleep 0.05; done
spawn mako WAYLAND_DISPLAY=wayland-1 DBUS_SESSION_BUS_ADDRESS="$mako_bus" mako >/dev/null 2>&1
shown_one "$mako_bus"
fill mako "$(started mako)" "$mako_bus"
