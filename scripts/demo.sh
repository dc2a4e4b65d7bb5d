#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The live demo. Builds toastd, toastctl and toast-tail (release), starts
# toastd on a private socket, and plays a short show -- every role, a
# progress HUD, a deduped update, actions, `toastctl run` -- while toast-tail
# draws the live stack. In a terminal, press q to end it (toastd stops with
# it); piped or in CI, it prints one line per event and ends with the show.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-packages.sh
ensure_packages build

swift build -c release 2>&1 | grep -v '^\[' || true
BIN="$(swift build -c release --show-bin-path)"
for tool in toastd toastctl toastctl-full toast-tail; do
    [ -x "$BIN/$tool" ] || { echo "demo: $BIN/$tool was not built" >&2; exit 1; }
done

DIR="$(mktemp -d "${TMPDIR:-/tmp}/toastd-demo.XXXXXX")"
export TOASTD_SOCKET="$DIR/toastd.sock"
"$BIN/toastd" --log-level notice --state-dir "$DIR/state" 2>"$DIR/toastd.log" &
DAEMON=$!
cleanup() {
    kill "$SHOW" "$TAIL" 2>/dev/null || true
    kill "$DAEMON" 2>/dev/null || true
    wait "$DAEMON" 2>/dev/null || true
    rm -rf "$DIR"
}
SHOW=""
TAIL=""
trap cleanup EXIT
for _ in $(seq 100); do [ -S "$TOASTD_SOCKET" ] && break; sleep 0.05; done

ctl() { "$BIN/toastctl" "$@" >/dev/null; }

show() {
    sleep 0.8
    ctl add "Welcome to toastd: one daemon, any number of viewers." --title "Hello" --role info --duration 6
    sleep 0.8
    ctl add "All 64 tests passed." --title "CI" --role success --reuse-id build --icon "🚀" --duration 8
    sleep 0.8
    ctl add "磁盘空间不足，请清理文件。" --title "Disk" --role warning --icon "💾" --duration 8
    sleep 0.8
    ctl add "Upload failed: connection reset." --role failure --alignment bottom --action retry:Retry --close-button --duration 10
    ctl add "Copied to clipboard" --alignment bottom --duration short
    sleep 1
    # A progress HUD, updated in place by its reuse id.
    ctl add "photos.tar (0 of 40 MB)" --title "Uploading" --role info --alignment center --reuse-id upload --progress 0 --not-dismissible
    megabytes=0
    for fraction in 0.125 0.25 0.375 0.5 0.625 0.75 0.875 1; do
        sleep 0.4
        megabytes=$((megabytes + 5))
        ctl update --reuse-id upload --progress "$fraction" --message "photos.tar ($megabytes of 40 MB)"
    done
    ctl update --reuse-id upload --progress none --role success --title "Uploaded" --message "photos.tar is on the server." --duration 3
    # The same toast again: updated in place, with a repeat count.
    sleep 0.6
    ctl add "All 64 tests passed." --title "CI" --role success --reuse-id build --icon "🚀" --duration 8
    sleep 0.6
    ctl add "All 64 tests passed." --title "CI" --role success --reuse-id build --icon "🚀" --duration 8
    sleep 1
    # An action: press 1 in toast-tail, or the demo presses it after 5 s.
    id="$("$BIN/toastctl" add "Deploy build 1234 to production?" --title "Deploy" --action deploy:Deploy --action cancel:Cancel --duration indefinite)"
    sleep 5
    "$BIN/toastctl" invoke "$id" --action deploy >/dev/null 2>&1 || true
    sleep 0.5
    # toastctl run: a spinner HUD while the command runs, then its result in place.
    "$BIN/toastctl" run -- sleep 2 >/dev/null
    sleep 3
    ctl add "That was the demo. Press q to quit; toastd stops with it. Meanwhile: TOASTD_SOCKET=$TOASTD_SOCKET toastctl add hi" \
        --title "Demo over" --role info --duration indefinite --alignment bottom
}

if [ -t 1 ] && [ -t 0 ]; then
    show &
    SHOW=$!
    "$BIN/toast-tail"
else
    "$BIN/toast-tail" --lines &
    TAIL=$!
    show
    sleep 0.5
    kill "$TAIL" 2>/dev/null || true
    wait "$TAIL" 2>/dev/null || true
    echo "demo: done (toastd log: $(wc -l <"$DIR/toastd.log") lines)"
fi
