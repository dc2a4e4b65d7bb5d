#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the Debian package as a user would, on this machine, and tests it
# (issue #43). Needs root, as CI is; it changes /usr, so CI runs it last.
#
#   1. scripts/package-deb.sh builds the packages (lintian must find no error);
#   2. apt-get installs toastd_*.deb with no Swift toolchain on PATH;
#   3. no binary loads anything from the toolchain (ldd), toastctl's front loads libc alone, toastctl-full is static;
#   4. scripts/systemd-e2e.sh runs against /usr/bin and /usr/lib/systemd/user:
#      socket activation by the first toastctl add, the journal's fields, the
#      watchdog, durable state, reload, history across a restart;
#   5. the notification-daemon package declares Provides and Conflicts;
#   6. apt-get purge leaves none of the package's files behind.
#
# (toastd-notification-daemon is not installed here: it conflicts with the
# dunst and mako the other tests drive, as it would on a desktop.)
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] || { echo "package-test: needs root; skipped"; exit 0; }
fail() { echo "FAIL: $*"; exit 1; }
out="$(mktemp -d /tmp/toastd-debs-XXXXXX)"
trap 'rm -rf "$out"' EXIT
echo "== build the packages"
mapfile -t debs < <(bash scripts/package-deb.sh "$out")
toastd_deb="$(printf '%s\n' "${debs[@]}" | grep '/toastd_')"
notify_deb="$(printf '%s\n' "${debs[@]}" | grep '/toastd-notification-daemon_')"
ls -l "${debs[@]}"
echo "Depends: $(dpkg-deb -f "$toastd_deb" Depends)"

echo "== install it with no Swift toolchain on PATH"
plain=(env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME="$HOME" DEBIAN_FRONTEND=noninteractive)
"${plain[@]}" sh -c '! command -v swift' || fail "swift is on the plain PATH"
"${plain[@]}" apt-get install -y -qq "$toastd_deb" >/dev/null || fail "apt-get install failed"
for tool in toastd toast-tail toast-notify toast-overlay; do
    libs="$(ldd "/usr/bin/$tool")"
    ! grep -q -e /opt/swift -e swift -e "not found" <<<"$libs" || fail "$tool loads from the toolchain: $libs"
done
# The loader must know packed relative relocations (glibc 2.36) where the binaries use them.
if grep -q GLIBC_ABI_DT_RELR /usr/bin/toastd; then
    floor="$(dpkg-deb -f "$toastd_deb" Depends | sed -n 's/.*libc6 (>= \([^)]*\)).*/\1/p')"
    dpkg --compare-versions "${floor:-0}" ge 2.36 || fail "toastd uses DT_RELR but the package depends on libc6 (>= ${floor:-nothing})"
fi
# toastd's store needs SQLite 3.31 (SQLITE_OPEN_NOFOLLOW); dpkg-shlibdeps alone writes 3.20.
floor="$(dpkg-deb -f "$toastd_deb" Depends | sed -n 's/.*libsqlite3-0 (>= \([^)]*\)).*/\1/p')"
dpkg --compare-versions "${floor:-0}" ge 3.31 || fail "toastd needs SQLite 3.31 but the package depends on libsqlite3-0 (>= ${floor:-nothing})"
static="$(ldd /usr/libexec/toastd/toastctl-full 2>&1 || true)"
grep -q -e "not a dynamic executable" -e "statically linked" <<<"$static" || fail "toastctl-full is not static: $static"
# toastctl's front loads the C library and nothing else.
front="$(ldd /usr/bin/toastctl | grep -v -e linux-vdso -e ld-linux -e 'libc\.so')" && fail "toastctl's front loads more than libc: $front"
[ -n "$("${plain[@]}" toastctl --version)" ] || fail "toastctl does not run (through its front)"
"${plain[@]}" man -w toastd.toml >/dev/null || fail "man toastd.toml finds no page"

echo "== the systemd end-to-end test against /usr/bin"
"${plain[@]}" TOASTD_E2E_INSTALLED=1 bash scripts/systemd-e2e.sh /usr/bin || fail "systemd-e2e against the package"

echo "== the notification server's package"
[ "$(dpkg-deb -f "$notify_deb" Provides)" = notification-daemon ] || fail "Provides: $(dpkg-deb -f "$notify_deb" Provides)"
[ "$(dpkg-deb -f "$notify_deb" Conflicts)" = notification-daemon ] || fail "Conflicts: $(dpkg-deb -f "$notify_deb" Conflicts)"
# The listing is read whole before it is searched: `dpkg-deb -c | grep -q`
# lets grep exit at the first match and dpkg-deb's tar die of SIGPIPE, which
# pipefail reports as a failure (it did, once, in CI).
notify_files=$(dpkg-deb -c "$notify_deb")
grep -q "usr/share/dbus-1/services/org.freedesktop.Notifications.service" <<<"$notify_files" || fail "no D-Bus service file"

echo "== purge: nothing left"
mapfile -t files < <(dpkg -L toastd | while read -r path; do [ -f "$path" ] && echo "$path"; done)
"${plain[@]}" apt-get purge -y -qq toastd >/dev/null || fail "apt-get purge failed"
for path in "${files[@]}"; do [ ! -e "$path" ] || fail "$path is still there"; done
dpkg -s toastd >/dev/null 2>&1 && fail "dpkg still knows toastd"
echo "package-test: ${#files[@]} files installed and purged; all passed"
