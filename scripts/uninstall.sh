#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Undoes scripts/install.sh for the current user: stops and disables the
# units, then removes the binaries, units, drop-ins, the D-Bus service file,
# completions, man pages and the README. The toasts' state
# (~/.local/state/toastd) and the configuration (~/.config/toastd) stay,
# unless --purge.
set -euo pipefail

purge=0
for argument in "$@"; do
    case "$argument" in
        --purge) purge=1 ;;
        *) echo "usage: $0 [--purge]" >&2; exit 64 ;;
    esac
done

PREFIX="$HOME/.local"
CONFIG="${XDG_CONFIG_HOME:-$HOME/.config}"
DATA="${XDG_DATA_HOME:-$HOME/.local/share}"
UNITS="$CONFIG/systemd/user"

if systemctl --user show-environment >/dev/null 2>&1; then
    systemctl --user disable --now toastd.socket toastd.service toast-notify.service toast-overlay.service >/dev/null 2>&1 || true
fi
for tool in toastd toastctl toast-tail toast-notify toast-overlay; do
    rm -f "$PREFIX/bin/$tool" "$PREFIX/share/man/man1/$tool.1" \
        "$PREFIX/share/bash-completion/completions/$tool" "$PREFIX/share/zsh/site-functions/_$tool" \
        "$CONFIG/fish/completions/$tool.fish"
done
rm -f "$PREFIX/share/man/man5/toastd.toml.5"
rm -f "$UNITS/toastd.socket" "$UNITS/toastd.service" "$UNITS/toast-notify.service" "$UNITS/toast-overlay.service" \
    "$UNITS/toastd.service.d/freedesktop.conf" "$DATA/dbus-1/services/org.freedesktop.Notifications.service"
rmdir "$UNITS/toastd.service.d" 2>/dev/null || true
rm -rf "$PREFIX/share/doc/toastd"
if ((purge)); then
    rm -rf "${XDG_STATE_HOME:-$HOME/.local/state}/toastd" "$CONFIG/toastd"
    echo "uninstalled, with the state and the configuration."
else
    echo "uninstalled. The state (${XDG_STATE_HOME:-$HOME/.local/state}/toastd) and the configuration ($CONFIG/toastd) stay; --purge removes them."
fi
systemctl --user daemon-reload 2>/dev/null || true
