#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Writes scripts/toastd.order, scripts/toastctl.order and
# scripts/toast-overlay.order: each tool's functions in the order the
# linker lays them out (build-release.sh, `--symbol-ordering-file`).
# toastd's: every function one plain `toastctl add` runs until it is
# answered (a session's add, after a rest), then those it runs after its
# answer, then every other function a request runs, the most run first,
# then every function start-up runs; before all of them, the one that
# reads the code back (CodeFolios). toast-tail and toast-notify are linked
# with it too.
# toastctl's: every function its commands run.
# toast-overlay's: that same first function, then every function its cards
# run (shown, updated, counted down, cleared), the most run first, then
# those its start alone ran, which it lets go of (StartUpPages).
# The rest of each binary comes after. A request or a card then touches a
# few hundred KiB of contiguous code, not pages spread over the whole
# binary, and what start-up alone ran is let go of in one block
# (docs/BENCHMARKS.md, "At rest"). It prints each group's count and size.
#
#   bash scripts/order-hot-code.sh [toastd] [toastctl] [toast-overlay]   # all three by default
#
# It runs the release tools under callgrind (valgrind), which sees every
# instruction run, however rarely. toastd: one dump when it is ready, one
# after a workload of the requests a desktop sends (toastctl add with each
# role, durations, a reuse id, actions and progress, a subscriber, list,
# status, history, clear, and a burst of pipelined adds). toastctl: add in
# three forms, status, list, history, clear. toast-overlay, under a
# headless sway: once started and left idle, once through a run of cards
# (a process asleep in poll never takes callgrind_control's dump, so the
# cards' functions are what the second run ran more than the first).
# Run it again when the code changes much; a stale order only costs
# locality, since functions it does not name are laid out after the ones
# it does.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-packages.sh
source scripts/build-release.sh
tools=("$@")
((${#tools[@]})) || tools=(toastd toastctl toast-overlay)
for tool in "${tools[@]}"; do
    case "$tool" in
        toastd | toastctl | toast-overlay) ;;
        *) echo "order-hot-code: no order for $tool (toastd, toastctl, toast-overlay)" >&2; exit 2 ;;
    esac
done
ensure_packages build bench overlay
command -v valgrind >/dev/null || { apt-get update -qq && apt-get install -y -qq valgrind >/dev/null; }

build_release --product toastd
swift build -c release --product toast-bench 2>&1 | grep -E 'error|warning' || true
work="$(mktemp -d)"
chmod 755 "$work"
trap 'kill "${VALGRIND_PID:-}" "${WATCH_PID:-}" "${TOASTD_PID:-}" "${SWAY_PID:-}" 2>/dev/null || true; rm -rf "$work"' EXIT
socket="$work/toastd.sock"

cat >"$work/order.py" <<'EOF'
import bisect, sys

# Functions are named from the binary's own symbol table, by the addresses
# callgrind saw run: valgrind 3.19 leaves some of lld's functions unnamed.
functions = sorted(
    (int(fields[0], 16), int(fields[1], 16), fields[3])
    for fields in (line.split(" ", 3) for line in open(sys.argv[1]).read().splitlines())
    if len(fields) == 4 and fields[2] in "tTwW"
)
starts = [start for start, _, _ in functions]
sizes = {name: size for _, size, name in functions}

def function_at(address):
    index = bisect.bisect_right(starts, address) - 1
    if index < 0 or address >= functions[index][0] + functions[index][1]:
        return None  # another object's (libc, libsqlite3), or no function's
    return functions[index][2]

def self_cost(path):
    """Instructions run in each of toastd's functions, from a callgrind
    dump with --dump-instr=yes: each cost line starts with an instruction
    address, absolute (0x...), relative to the last (+N, -N) or the same (*)."""
    cost, address = {}, 0
    for line in open(path, errors="replace"):
        fields = line.split()
        if len(fields) < 2 or fields[0][:1] not in "0+-*":
            continue
        position = fields[0]
        if position.startswith("0x"):
            address = int(position, 16)
        elif position[0] in "+-":
            address += int(position)
        name = function_at(address)
        if name is not None and fields[-1].isdigit():
            cost[name] = cost.get(name, 0) + int(fields[-1])
    return cost

def total_cost(paths):
    """Each function's instructions summed over the dumps of a group, less
    those of the dumps named --less=PATH: what the group ran beyond them."""
    cost = {}
    for path in paths:
        sign = -1 if path.startswith("--less=") else 1
        for name, instructions in self_cost(path.removeprefix("--less=")).items():
            cost[name] = cost.get(name, 0) + sign * instructions
    return {name: instructions for name, instructions in cost.items() if instructions > 0}

# order.py SYMBOLS GROUP [-- GROUP...]: the functions each group of dumps
# ran, the most run first, then those only the next group ran, and so on.
groups, group = [], []
for argument in sys.argv[2:]:
    if argument == "--":
        groups.append(group)
        group = []
    else:
        group.append(argument)
groups.append(group)
order, placed = [], set()
for paths in groups:
    cost = total_cost(paths)
    names = sorted((name for name in cost if name not in placed), key=lambda name: -cost[name])
    order += names
    placed.update(names)
    size = sum(sizes.get(name, 0) for name in names)
    print(f"  {len(names)} functions, {size // 1024} KiB, first run by {' '.join(p.rsplit('/', 1)[-1] for p in paths)}", file=sys.stderr)
print("\n".join(order))
EOF

# valgrind 3.19 cannot read the DWARF 5 that Swift writes; the symbols are enough.
unstripped() {
    strip --strip-debug -o "$work/$1" "$2"
    nm --defined-only --print-size "$work/$1" >"$work/$1.symbols"
}

# scripts/$1.order from order.py's groups of dumps (the rest of the
# arguments). First, the one function that must run from the hot code
# although no request or card runs it: CodeFolios' (Sources/CCodePages).
write_order() {
    local tool="$1"
    shift
    {
        echo toastd_code_pages_reread
        python3 "$work/order.py" "$work/$tool.symbols" "$@" | grep -v -x toastd_code_pages_reread
    } >"scripts/$tool.order"
    echo "scripts/$tool.order: $(wc -l <"scripts/$tool.order") functions"
}

order_toastd() {
    unstripped toastd .build-static-stdlib/release/toastd
    valgrind --tool=callgrind --dump-instr=yes --callgrind-out-file="$work/callgrind" \
        "$work/toastd" --socket "$socket" --state-dir "$work/state" >"$work/valgrind.log" 2>&1 &
    VALGRIND_PID=$!
    for _ in $(seq 1200); do [ -S "$socket" ] && break; sleep 0.1; done
    sleep 3
    callgrind_control --dump=start-up "$VALGRIND_PID" >/dev/null
    # One plain add, as a session's `toastctl add` sends it through toastctl's
    # front, after a first one (whose connection paid the runtime's one-time
    # lookups) and its deferred commit: the path an add after a rest runs.
    TOASTD_SOCKET="$socket" "$TOASTCTL_BIN" add "first" >/dev/null
    sleep 3
    callgrind_control --dump=first-add "$VALGRIND_PID" >/dev/null
    TOASTD_SOCKET="$socket" "$TOASTCTL_BIN" add "Build finished" >/dev/null
    callgrind_control --dump=one-add "$VALGRIND_PID" >/dev/null
    # What the add runs after its answer: its log line, the connection's close,
    # the journaled step handed to the commit thread, a checkpoint.
    sleep 3
    callgrind_control --dump=after-the-add "$VALGRIND_PID" >/dev/null

    ctl() { "$TOASTCTL_BIN" "$@" --socket "$socket" >/dev/null; }
    "$TOASTCTL_BIN" watch --socket "$socket" >/dev/null &
    WATCH_PID=$!
    roles=(info success warning failure plain)
    for i in $(seq 0 299); do
        role="${roles[$((i % 5))]}"
        case $((i % 6)) in
            0) ctl add "build $i finished" --role "$role" --duration 1 ;;
            1) ctl add "deploy $i" --title Deploy --role "$role" --reuse-id "deploy-$((i % 7))" --duration short ;;
            2) ctl add "upload $i" --progress 0.$((i % 10)) --alignment center --duration 1 ;;
            3) ctl add "mail $i" --action open:Open --action later:Later --close-button --duration 1 ;;
            4) ctl add "sync $i" --scene ide --source make --duration long ;;
            5) ctl add "notice $i" --duration indefinite ;;
        esac
        if ((i % 25 == 0)); then ctl list; ctl status; fi
    done
    sleep 6
    ctl history
    ctl clear --force
    "$RELEASE_BIN/toast-bench" ingest-rate --socket "$socket" --connections 2 --adds 2000 >/dev/null
    ctl status
    sleep 3
    callgrind_control --dump=requests "$VALGRIND_PID" >/dev/null
    kill "$WATCH_PID"
    kill "$VALGRIND_PID"
    wait "$VALGRIND_PID" || true

    write_order toastd "$work/callgrind.3" -- "$work/callgrind.4" -- "$work/callgrind.2" "$work/callgrind.5" -- "$work/callgrind.1"
}

order_toastctl() {
    unstripped toastctl .build-static/release/toastctl-full
    # toastctl: each command under callgrind, against a toastd of its own.
    "$TOASTD_BIN" --socket "$socket" --state-dir "$work/state" 2>/dev/null &
    TOASTD_PID=$!
    for _ in $(seq 500); do [ -S "$socket" ] && break; sleep 0.01; done
    run=0
    traced() {
        run=$((run + 1))
        valgrind --tool=callgrind --dump-instr=yes --callgrind-out-file="$work/toastctl.$run" \
            "$work/toastctl" "$@" --socket "$socket" >/dev/null 2>>"$work/valgrind.log"
    }
    traced add "Build finished"
    traced add "Deploy" --role success --title CI --duration long --reuse-id deploy
    traced add "Upload" --progress 0.4 --action open:Open --close-button
    traced status
    traced list
    traced history
    traced clear --force
    kill "$TOASTD_PID"
    python3 "$work/order.py" "$work/toastctl.symbols" "$work"/toastctl.[0-9]* >scripts/toastctl.order
    echo "scripts/toastctl.order: $(wc -l <scripts/toastctl.order) functions"
}

order_toast_overlay() {
    unstripped toast-overlay .build-static-stdlib/release/toast-overlay
    # Its own runtime directory, of the desktop's user: sway refuses root.
    local desktop="$work/desktop" as_user=()
    mkdir -p "$desktop"
    if [ "$(id -u)" = 0 ]; then
        chown 1000:1000 "$desktop"
        as_user=(setpriv --reuid=1000 --regid=1000 --clear-groups)
    fi
    chmod 700 "$desktop"
    # A command, not a function, so that $! is the process itself.
    local user=("${as_user[@]}" env -i HOME="$desktop" XDG_RUNTIME_DIR="$desktop" WAYLAND_DISPLAY=wayland-1 PATH=/usr/bin:/bin
        TOASTD_SOCKET="$desktop/toastd.sock")
    "${user[@]}" WLR_BACKENDS=headless WLR_LIBINPUT_NO_DEVICES=1 WLR_RENDERER=pixman sway -c /dev/null >/dev/null 2>&1 &
    SWAY_PID=$!
    for _ in $(seq 200); do [ -S "$desktop/wayland-1" ] && break; sleep 0.05; done
    "${user[@]}" "$TOASTD_BIN" --socket "$desktop/toastd.sock" --ephemeral 2>/dev/null &
    TOASTD_PID=$!
    for _ in $(seq 200); do [ -S "$desktop/toastd.sock" ] && break; sleep 0.05; done
    ctl() { "${user[@]}" "$TOASTCTL_BIN" "$@" >/dev/null; }
    local run
    for run in start cards; do
        "${user[@]}" valgrind --tool=callgrind --dump-instr=yes --callgrind-out-file="$desktop/overlay.$run" \
            "$work/toast-overlay" >/dev/null 2>>"$work/valgrind.log" &
        VALGRIND_PID=$!
        # Started, drawn nothing, and let go of its start-up code: asleep.
        sleep 15
        if [ "$run" = cards ]; then
            local round
            for round in 1 2; do
                ctl add "Build $round finished" --title CI --role success --duration indefinite
                ctl add "Uploading" --reuse-id upload --progress 0.3 --alignment bottom --duration indefinite
                sleep 4
                ctl add "Uploading" --reuse-id upload --progress 0.8 --alignment bottom --duration indefinite
                ctl add "Mail from Ann" --action open:Open --action later:Later --close-button --role info
                ctl add "Disk almost full" --role warning --alignment center --duration 1
                sleep 8
                ctl clear --force
                sleep 4
            done
        fi
        kill "$VALGRIND_PID"
        wait "$VALGRIND_PID" || true
    done
    kill "$TOASTD_PID" "$SWAY_PID"
    wait "$TOASTD_PID" "$SWAY_PID" 2>/dev/null || true
    write_order toast-overlay "$desktop/overlay.cards" "--less=$desktop/overlay.start" -- "$desktop/overlay.start"
}

for tool in "${tools[@]}"; do
    "order_${tool//-/_}"
done
