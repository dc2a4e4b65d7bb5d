#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Removes exactly what scripts/install.sh put down (its list in
# PREFIX/share/toastd/installed-files), after stopping the units. The state
# and the configuration stay (~/.local/state/toastd, ~/.config/toastd).
#
#   scripts/uninstall.sh [--prefix DIR]     (the prefix install.sh was given)
set -euo pipefail
prefix="$HOME/.local"
while [ $# -gt 0 ]; do
    case "$1" in
        --prefix) prefix="${2:?--prefix takes a directory}"; shift ;;
        --prefix=*) prefix="${1#--prefix=}" ;;
        *) echo "usage: $0 [--prefix DIR]" >&2; exit 64 ;;
    esac
    shift
done
destdir="${DESTDIR:-}"
manifest="${prefix%/}/share/toastd/installed-files"
[ -f "$destdir$manifest" ] || { echo "nothing to remove: $destdir$manifest is not there" >&2; exit 1; }
if [ -z "$destdir" ] && systemctl --user show-environment >/dev/null 2>&1; then
    systemctl --user disable --now toastd.socket toastd.service toast-notify.service toast-overlay.service >/dev/null 2>&1 || true
fi
while IFS= read -r path; do
    [ -n "$path" ] || continue
    rm -f "$destdir$path"
    # toastd's own directories go when empty; shared ones (bin, man1, ...) stay.
    case "$(dirname "$path")" in
        */share/toastd | */share/doc/toastd | */toastd.service.d | */libexec/toastd) rmdir "$destdir$(dirname "$path")" 2>/dev/null || true ;;
    esac
done <"$destdir$manifest"
[ -n "$destdir" ] || systemctl --user daemon-reload 2>/dev/null || true
echo "removed toastd (the state and the configuration stay)"
