#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the Debian packages from a clone, with dpkg-deb, from the one
# release build (scripts/build-release.sh) staged by install.sh:
#
#   toastd_VERSION_amd64.deb                      the tools in /usr/bin, user units in
#                                                 /usr/lib/systemd/user, man pages,
#                                                 completions, the README and copyright
#   toastd-notification-daemon_VERSION_all.deb    toastd as org.freedesktop.Notifications
#                                                 (the D-Bus service file and the unit
#                                                 drop-in): Provides and Conflicts
#                                                 notification-daemon, as dunst and mako do
#   toastd-dbgsym_VERSION_amd64.deb               the debug information, in /usr/lib/debug
#
#   bash scripts/package-deb.sh [OUTDIR]   (default: .build-deb; prints the files made)
#
# Depends is computed from the binaries by dpkg-shlibdeps. With lintian
# installed, it runs on the packages; overrides are in packaging/.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-$PWD/.build-deb}"
# stdout says only the packages made; everything else goes to stderr.
exec 3>&1 1>&2
source scripts/ensure-packages.sh
source scripts/build-release.sh
ensure_packages build package
build_release --product toastd
version="$("$STAGE_BIN/toastd" --version)"
arch="$(dpkg --print-architecture)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"

# --- toastd: what install.sh puts down for /usr, rearranged as Debian wants it.
root="$work/toastd"
DESTDIR="$root" TOASTD_BIN_DIR="$STAGE_BIN" bash scripts/install.sh --prefix /usr --freedesktop >/dev/null
rm -rf "$root/usr/share/toastd"   # install.sh's list of files: dpkg keeps its own
# The notification server's two files go to their own package.
notify="$work/toastd-notification-daemon"
mkdir -p "$notify/usr/share/dbus-1/services" "$notify/usr/lib/systemd/user/toastd.service.d"
mv "$root/usr/share/dbus-1/services/org.freedesktop.Notifications.service" "$notify/usr/share/dbus-1/services/"
mv "$root/usr/lib/systemd/user/toastd.service.d/freedesktop.conf" "$notify/usr/lib/systemd/user/toastd.service.d/"
rmdir "$root/usr/share/dbus-1/services" "$root/usr/share/dbus-1" "$root/usr/lib/systemd/user/toastd.service.d"
# zsh's completions where Debian's zsh reads packages' ones.
mkdir -p "$root/usr/share/zsh/vendor-completions"
mv "$root/usr/share/zsh/site-functions/"* "$root/usr/share/zsh/vendor-completions/"
rmdir "$root/usr/share/zsh/site-functions"
gzip -9n "$root/usr/share/man/man1/"*.1 "$root/usr/share/man/man5/"*.5
rm "$root/usr/share/doc/toastd/LICENSE"   # copyright says it, as Debian's policy asks

docs() {  # the copyright and changelog every Debian package carries
    local doc="$1/usr/share/doc/$2"
    mkdir -p "$doc"
    cat >"$doc/copyright" <<COPYRIGHT
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: toastd
Source: https://github.com/toastd/toastd
Comment: The binaries also hold, linked in: the Swift runtime, its standard
 library and FoundationEssentials (Apache-2.0 with the Runtime Library
 Exception, https://swift.org/LICENSE.txt); swift-nio, swift-argument-parser,
 swift-log, swift-collections, swift-atomics and swift-system (Apache-2.0,
 the text below); GCC's libstdc++ (GPL-3 with the GCC Runtime Library
 Exception, /usr/share/common-licenses/GPL-3) in every tool but toast-overlay
 and toastctl's front, and the GNU C library (LGPL-2.1,
 /usr/share/common-licenses/LGPL-2.1) in the fully static toastctl-full; and
 toml++ by Mark Gillard (Expat, in toastd and toast-overlay), whose license
 is:
 .
 Permission is hereby granted, free of charge, to any person obtaining a
 copy of this software and associated documentation files (the "Software"),
 to deal in the Software without restriction, including without limitation
 the rights to use, copy, modify, merge, publish, distribute, sublicense,
 and/or sell copies of the Software, and to permit persons to whom the
 Software is furnished to do so, subject to the following conditions:
 .
 The above copyright notice and this permission notice shall be included
 in all copies or substantial portions of the Software.
 .
 THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
 IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
 FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL
 THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR
 OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE,
 ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR
 OTHER DEALINGS IN THE SOFTWARE.

Files: *
Copyright: 2026 the toastd authors
License: Apache-2.0
 Licensed under the Apache License, Version 2.0 (the "License"); you may not
 use this file except in compliance with the License.
 .
 On Debian systems, the complete text of the Apache License 2.0 can be
 found in "/usr/share/common-licenses/Apache-2.0".
COPYRIGHT
    printf '%s (%s) unstable; urgency=medium\n\n  * Built from the toastd tree by scripts/package-deb.sh.\n\n -- toastd <toastd@users.noreply.github.com>  %s\n' \
        "$3" "$version" "$(date -R -u -d @"${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct)}")" | gzip -9n >"$doc/changelog.gz"
}
docs "$root" toastd toastd
docs "$notify" toastd-notification-daemon toastd

# --- debug information: gdb finds /usr/lib/debug/usr/bin/TOOL.debug through .gnu_debuglink.
dbg="$work/toastd-dbgsym"
mkdir -p "$dbg/usr/lib/debug/usr/bin"
cp "$STAGE_DEBUG/"*.debug "$dbg/usr/lib/debug/usr/bin/"
docs "$dbg" toastd-dbgsym toastd

# --- Depends, from the binaries' NEEDED libraries.
mkdir -p "$work/src/debian"
printf 'Source: toastd\n\nPackage: toastd\nArchitecture: any\n' >"$work/src/debian/control"
depends="$(cd "$work/src" && dpkg-shlibdeps -O -e"$root/usr/bin/toastd" -e"$root/usr/bin/toast-tail" -e"$root/usr/bin/toast-notify" \
    -e"$root/usr/bin/toast-overlay" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')"
# dpkg-shlibdeps reads only the symbols' versions; two needs it does not see
# raise a floor it wrote (raise_floor PACKAGE VERSION).
raise_floor() {
    local floor
    floor="$(sed -n "s/.*$1 (>= \\([^)]*\\)).*/\\1/p" <<<"$depends")"
    if [ -n "$floor" ] && dpkg --compare-versions "$floor" lt "$2"; then
        depends="${depends/$1 (>= $floor)/$1 (>= $2)}"
    fi
}
# Binaries linked with packed relative relocations (DT_RELR, build-release.sh)
# need the loader of glibc 2.36 (GLIBC_ABI_DT_RELR).
if grep -q GLIBC_ABI_DT_RELR "$root/usr/bin/"*; then raise_floor libc6 2.36; fi
# toastd opens its store with SQLITE_OPEN_NOFOLLOW, which SQLite knows from
# 3.31 on (an older one would fail every open with SQLITE_MISUSE).
raise_floor libsqlite3-0 3.31

control() {  # DIR PACKAGE ARCH FIELDS...
    local dir="$1" package="$2" architecture="$3"
    shift 3
    mkdir -p "$dir/DEBIAN"
    {
        echo "Package: $package"
        echo "Version: $version"
        echo "Architecture: $architecture"
        echo "Maintainer: toastd <toastd@users.noreply.github.com>"
        echo "Installed-Size: $(du -sk --exclude=DEBIAN "$dir" | cut -f1)"
        printf '%s\n' "$@"
    } >"$dir/DEBIAN/control"
    find "$dir" -path "$dir/DEBIAN" -prune -o -type f -print0 | sort -z | xargs -0 md5sum | sed "s|$dir/||" >"$dir/DEBIAN/md5sums"
}
control "$notify" toastd-notification-daemon all "Depends: toastd (= $version), dbus" "Provides: notification-daemon" \
    "Conflicts: notification-daemon" "Replaces: notification-daemon" "Section: x11" "Priority: optional" \
    "Description: toastd as the desktop's notification server" \
    " Makes toastd own org.freedesktop.Notifications: notify-send and every libnotify" \
    " program land in toastd, and toast-overlay draws them. It replaces another" \
    " notification daemon (dunst, mako, notification-daemon), hence the conflict."
control "$dbg" toastd-dbgsym "$arch" "Depends: toastd (= $version)" "Section: debug" "Priority: optional" \
    "Description: debug symbols for toastd" \
    " The debug information of toastd's tools, found by gdb through .gnu_debuglink."

# Fixed owners, modes and times: the same tree makes the same package.
export SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct)}"
for dir in "$root" "$notify" "$dbg"; do
    find "$dir" -type d -exec chmod 755 {} +
    find "$dir" -newermt "@$SOURCE_DATE_EPOCH" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
done
mkdir -p "$root/usr/share/lintian/overrides"
cp packaging/toastd.lintian-overrides "$root/usr/share/lintian/overrides/toastd"
touch -d "@$SOURCE_DATE_EPOCH" "$root/usr/share/lintian/overrides/toastd" "$root/usr/share/lintian/overrides" "$root/usr/share/lintian"
control "$root" toastd "$arch" "Depends: $depends" "Recommends: libnotify-bin" "Section: utils" "Priority: optional" \
    "Homepage: https://github.com/toastd/toastd" \
    "Description: transient messages (toasts) for the Linux desktop" \
    " toastd schedules toasts from any process (toastctl add \"Build finished\"), keeps" \
    " them across restarts, and shows them in a terminal (toast-tail) or on screen" \
    " (toast-overlay, Wayland layer-shell or X11). It runs as a systemd user service" \
    " with socket activation, and can be the desktop's notification server" \
    " (toastd-notification-daemon)."
made=()
for pair in "$root:toastd:$arch" "$notify:toastd-notification-daemon:all" "$dbg:toastd-dbgsym:$arch"; do
    IFS=: read -r dir package architecture <<<"$pair"
    file="$out/${package}_${version}_${architecture}.deb"
    dpkg-deb --root-owner-group -Zxz --build "$dir" "$file" >/dev/null
    made+=("$file")
done
printf '%s\n' "${made[@]}" >&3
if command -v lintian >/dev/null; then
    lintian --fail-on error "${made[@]}" >&2
fi
