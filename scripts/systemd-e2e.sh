#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# End to end under a real systemd user manager and journald, inside a
# private mount namespace (see README "systemd"). Needs root, as CI is.
#
#   scripts/systemd-e2e.sh BIN_DIR     (BIN_DIR holds toastd, toastctl, toast-tail)
#   TOASTD_E2E_INSTALLED=1 scripts/systemd-e2e.sh /usr/bin
#                                      against the installed package: its
#                                      units in /usr/lib/systemd/user, no install.sh
#
# It leaves the machine as it found it: /run and the journal directory are
# tmpfs mounts private to the namespace; the harness runs in child cgroups
# (named *.slice, so that the user manager moves nothing else) of its own
# cgroups, and moves back and removes them at the end.
set -euo pipefail
BIN="$(cd "${1:?usage: $0 BIN_DIR}" && pwd)"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
[ "$(id -u)" = 0 ] || { echo "systemd-e2e: needs root; skipped"; exit 77; }
if [ -z "${TOASTD_E2E_INSIDE:-}" ]; then
    exec env TOASTD_E2E_INSIDE=1 unshare --mount --propagation private "$0" "$@"
fi

step() { echo "== $*"; }
fail() {
    echo "FAIL: $*"
    systemctl --user status toastd.service --no-pager -n 20 2>/dev/null
    grep -i toastd "$WORK/manager.log" | tail -20
    exit 1
}

# --- the namespace: a private /run (sd_booted() needs /run/systemd/system) and journal
mount -t tmpfs -o mode=755 tmpfs /run
mkdir -p /run/systemd/system /run/user/0
chmod 700 /run/user/0
for journal in /var/log/journal /var/lib/systemd/coredump; do
    [ -d "$journal" ] && mount -t tmpfs tmpfs "$journal"
done
# Not under /tmp: the unit has PrivateTmp=yes, and HOME (with ~/.local/bin) lives here.
WORK=/run/toastd-e2e
mkdir -p "$WORK"

# --- cgroups: a child *.slice of our cgroup in every hierarchy
SLICE="toastd-e2e-$$.slice"
declare -a CREATED=() ORIGINAL=()
# Read it whole first: it changes as the process moves.
mapfile -t MEMBERSHIP </proc/self/cgroup
for line in "${MEMBERSHIP[@]}"; do
    IFS=: read -r _ controllers path <<<"$line"
    case "$controllers" in
        "") dir=/sys/fs/cgroup/unified ;;
        name=systemd) dir=/sys/fs/cgroup/systemd ;;
        *) dir="/sys/fs/cgroup/${controllers%%,*}" ;;
    esac
    [ -d "$dir$path" ] || continue
    child="$dir${path%/}/$SLICE"
    mkdir "$child"
    if [ -f "$dir$path/cpuset.cpus" ]; then
        cat "$dir$path/cpuset.cpus" >"$child/cpuset.cpus"
        cat "$dir$path/cpuset.mems" >"$child/cpuset.mems"
    fi
    echo $$ >"$child/cgroup.procs"
    CREATED+=("$child")
    ORIGINAL+=("$dir$path")
done

JOURNALD=""
MANAGER=""
cleanup() {
    set +e
    systemctl --user exit >/dev/null 2>&1
    [ -n "$MANAGER" ] && { for _ in $(seq 50); do kill -0 "$MANAGER" 2>/dev/null || break; sleep 0.1; done; kill -9 "$MANAGER" 2>/dev/null; }
    [ -n "$JOURNALD" ] && kill "$JOURNALD" 2>/dev/null && wait "$JOURNALD" 2>/dev/null
    # Whatever is left in our cgroups (units the manager started) ends here.
    for index in "${!CREATED[@]}"; do
        for pid in $(cat "${CREATED[$index]}/cgroup.procs" 2>/dev/null); do
            [ "$pid" = $$ ] || kill -9 "$pid" 2>/dev/null
        done
    done
    sleep 0.2
    for index in "${!CREATED[@]}"; do
        echo $$ >"${ORIGINAL[$index]}/cgroup.procs"
        # The manager made sub-cgroups (user units) below ours: remove them deepest first.
        find "${CREATED[$index]}" -mindepth 1 -depth -type d -exec rmdir {} \; 2>/dev/null
        rmdir "${CREATED[$index]}"
    done
}
trap cleanup EXIT

step "journald"
/lib/systemd/systemd-journald &
JOURNALD=$!
for _ in $(seq 100); do [ -S /run/systemd/journal/socket ] && break; sleep 0.05; done
[ -S /run/systemd/journal/socket ] || fail "journald did not start"

step "systemd --user"
export HOME="$WORK/home" XDG_RUNTIME_DIR=/run/user/0
export XDG_CONFIG_HOME="$HOME/.config"
mkdir -p "$HOME"
/lib/systemd/systemd --user >"$WORK/manager.log" 2>&1 &
MANAGER=$!
for _ in $(seq 100); do
    state="$(systemctl --user is-system-running 2>/dev/null || true)"
    [ "$state" = running ] || [ "$state" = degraded ] && break
    sleep 0.1
done
[ "$state" = running ] || [ "$state" = degraded ] || { cat "$WORK/manager.log"; fail "the user manager did not come up ($state)"; }

step "install and enable the socket"
if [ -n "${TOASTD_E2E_INSTALLED:-}" ]; then
    [ -f /usr/lib/systemd/user/toastd.socket ] || fail "no /usr/lib/systemd/user/toastd.socket: is the package installed?"
    TOASTCTL="$BIN/toastctl"
else
    TOASTD_BIN_DIR="$BIN" "$ROOT/scripts/install.sh"
    TOASTCTL="$HOME/.local/bin/toastctl"
fi
# Shorter timers than the shipped units, so the watchdog test takes seconds.
mkdir -p "$XDG_CONFIG_HOME/systemd/user/toastd.service.d"
cat >"$XDG_CONFIG_HOME/systemd/user/toastd.service.d/test.conf" <<UNIT
[Service]
WatchdogSec=2s
TimeoutAbortSec=2s
RestartSec=100ms
${TOASTD_E2E_EXTRA:-}
UNIT
systemctl --user daemon-reload
systemctl --user enable --now toastd.socket
[ -S "$XDG_RUNTIME_DIR/toastd.sock" ] || fail "the socket unit did not create $XDG_RUNTIME_DIR/toastd.sock"
[ "$(systemctl --user show toastd.service -p ActiveState --value)" = inactive ] || fail "toastd started before its first client"
[ "$(systemctl --user show toastd.service -p ExecMainPID --value)" = 0 ] || true
echo "ExecStart: $(systemctl --user show toastd.service -p ExecStart --value | grep -o 'path=[^ ;]*')"

step "the first toastctl add activates toastd"
id="$("$TOASTCTL" add "activated by a client" --role failure --duration indefinite)" || fail "the first add failed"
[ "$id" = 1 ] || fail "add printed '$id'"
# The reply can come before systemd has read READY=1 (the socket is
# systemd's, so toastd serves it from its first moment): wait for the state.
for _ in $(seq 50); do
    [ "$(systemctl --user show toastd.service -p ActiveState --value)" = active ] && break
    sleep 0.1
done
[ "$(systemctl --user show toastd.service -p ActiveState --value)" = active ] || fail "toastd is not active"
sleep 1.2  # STATUS= is rate-limited to one a second
status="$(systemctl --user show toastd.service -p StatusText --value)"
echo "StatusText=$status"
[[ "$status" == "1 shown, 0 queued, "* ]] || fail "StatusText is '$status'"

step "journalctl finds the toast by its TOASTD_ fields"
entry="$(journalctl -u toastd.service TOASTD_ROLE=failure TOASTD_TOAST_ID=1 -o json --no-pager | sed -n 1p)"
echo "$entry" | grep -q '"MESSAGE":"toast added"' || { journalctl -u toastd.service --no-pager | tail; fail "no structured entry: $entry"; }
echo "$entry" | grep -q '"SYSLOG_IDENTIFIER":"toastd"' || fail "no SYSLOG_IDENTIFIER"
echo "$entry" | grep -q '"CODE_FUNC":' || fail "no CODE_FUNC"

step "the hot code is mapped with huge pages, inside the unit's sandbox"
# Only a release build is laid out for it (scripts/build-release.sh,
# HUGE_CODE: its code segment aligned to 2 MiB); a debug build is not.
pid="$(systemctl --user show toastd.service -p MainPID --value)"
exe="$(readlink "/proc/$pid/exe")"
if readelf -lW "$exe" | grep -q 'R E 0x200000'; then
    huge=0
    for _ in $(seq 50); do
        huge="$(awk '/^FilePmdMapped:/ {print $2}' "/proc/$pid/smaps_rollup")"
        [ "${huge:-0}" -ge 4096 ] && break
        sleep 0.1
    done
    [ "${huge:-0}" -ge 4096 ] || fail "toastd ($exe) maps ${huge:-0} KiB of code with huge pages, not 4096"
    echo "FilePmdMapped: $huge kB"
else
    echo "skipped: $exe is not laid out for huge pages"
fi

step "systemd-analyze security (informational)"
systemd-analyze --user security toastd.service --no-pager 2>/dev/null | tail -1 || true

step "a stopped daemon is killed by the watchdog and restarted"
pid="$(systemctl --user show toastd.service -p MainPID --value)"
kill -STOP "$pid"
for _ in $(seq 100); do
    now="$(systemctl --user show toastd.service -p MainPID --value)"
    [ "$now" != "$pid" ] && [ "$now" != 0 ] && break
    sleep 0.1
done
[ "$now" != "$pid" ] && [ "$now" != 0 ] || fail "the watchdog did not replace pid $pid"
# A stopped process cannot end by itself: only the watchdog's SIGABRT (then SIGKILL) ends it.
kill -0 "$pid" 2>/dev/null && fail "the stopped toastd $pid is still there"
[ "$(systemctl --user show toastd.service -p NRestarts --value)" -ge 1 ] || fail "NRestarts did not grow"
echo "pid $pid replaced by $now"

step "the restarted daemon kept its stack and its counters (durable state)"
list="$("$TOASTCTL" list --json)"
echo "$list" | grep -q '"message":"activated by a client"' || fail "the watchdog restart lost the stack: $list"
"$TOASTCTL" status --json | grep -q '"persistence":"durable"' || fail "persistence is not durable: $("$TOASTCTL" status --json)"
state_dir="$(tr '\0' '\n' <"/proc/$now/environ" | sed -n 's/^STATE_DIRECTORY=//p')"
echo "StateDirectory: $state_dir"
[ -n "$state_dir" ] && [ -f "$state_dir/toastd.sqlite" ] || fail "no database in the unit's StateDirectory ('$state_dir')"
next="$("$TOASTCTL" add "after the watchdog")" || fail "an add after the restart failed"
[ "$next" = 2 ] || fail "the id after the restart is '$next', not 2: an id was reused or skipped"

step "kill -9 during a stream of adds: no client is refused, every later add is acknowledged"
results="$WORK/adds"
: >"$results"
rm -f "$WORK/killed"
(
    # Adds until the kill, and 100 after it (a fast toastctl would finish a fixed count first).
    after_kill=0
    for n in $(seq 1 20000); do
        start="$(date +%s%N)"
        if out="$("$TOASTCTL" add "stream $n" --duration 1 2>&1)"; then code=0; else code=$?; fi
        echo "$n $start $code ${out//$'\n'/ }" >>"$results"
        if [ -e "$WORK/killed" ]; then
            after_kill=$((after_kill + 1))
            [ "$after_kill" -lt 100 ] || break
        fi
    done
) &
STREAM=$!
sleep 0.5
victim="$(systemctl --user show toastd.service -p MainPID --value)"
kill -9 "$victim"
# "After the kill" starts once the victim is dead (gone, or a zombie whose
# sockets are closed): an add that connected just before died with it
# unanswered, which its client reports (exit 1) and is not this check's.
# (toastctl's front connects within a millisecond: it met that window.)
while [ -e "/proc/$victim" ] && ! awk '{ sub(/.*\) /, ""); exit !($1 == "Z" || $1 == "X") }' "/proc/$victim/stat" 2>/dev/null; do
    sleep 0.001
done
killed_at="$(date +%s%N)"
touch "$WORK/killed"
wait "$STREAM"
refused="$(grep -c -i "refused" "$results" || true)"
late_failures="$(awk -v t="$killed_at" '$2 > t && $3 != 0' "$results")"
total="$(wc -l <"$results")"
after="$(awk -v t="$killed_at" '$2 > t' "$results" | wc -l)"
echo "$total adds, $after sent after the kill"
[ "$refused" = 0 ] || { grep -i refused "$results"; fail "a client saw connection refused"; }
[ -z "$late_failures" ] || { echo "$late_failures"; fail "an add sent after the kill was not acknowledged"; }
[ "$after" -gt 0 ] || fail "no add was sent after the kill"
[ "$(systemctl --user show toastd.service -p MainPID --value)" != "$victim" ] || fail "toastd was not restarted"

step "systemctl reload re-reads the configuration; a broken file is refused, shown in StatusText, and the old rules stay"
mkdir -p "$HOME/.config/toastd"
cat >"$HOME/.config/toastd/config.toml" <<'TOML'
[[rule]]
match = { source = "e2e*" }
set = { role = "warning" }
TOML
systemctl --user reload toastd.service
for _ in $(seq 50); do "$TOASTCTL" status --json | grep -q '"rules":1' && break; sleep 0.1; done
"$TOASTCTL" status --json | grep -q '"rules":1' || fail "the reload did not load the rule: $("$TOASTCTL" status --json)"
"$TOASTCTL" add "ruled" --source e2e-job --json | grep -q '"role":"warning"' || fail "the rule did not apply"
printf '[[rule]\nmatch = {}\n' >"$HOME/.config/toastd/config.toml"
systemctl --user reload toastd.service
for _ in $(seq 50); do "$TOASTCTL" status --json | grep -q '"configError"' && break; sleep 0.1; done
sleep 1.2  # STATUS= is rate-limited to one a second
status="$(systemctl --user show toastd.service -p StatusText --value)"
echo "StatusText=$status"
[[ "$status" == *"CONFIG REFUSED"*"config.toml:1:"* ]] || fail "StatusText does not show the refused file: '$status'"
"$TOASTCTL" add "still ruled" --source e2e-job --json | grep -q '"role":"warning"' || fail "the old rule was lost"
[ "$(systemctl --user show toastd.service -p ActiveState --value)" = active ] || fail "toastd is not active after the reloads"

step "the history is kept across a restart"
ended="$("$TOASTCTL" add "kept in history" --duration indefinite)" || fail "an add failed"
"$TOASTCTL" dismiss "$ended" >/dev/null || fail "the dismiss failed"
systemctl --user restart toastd.service
grep -q "kept in history" <<<"$("$TOASTCTL" history)" || fail "the history lost the toast across a restart: $("$TOASTCTL" history)"

step "stop"
systemctl --user stop toastd.socket toastd.service
echo "systemd-e2e: all passed"
