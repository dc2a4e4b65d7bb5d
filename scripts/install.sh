#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs toastd for the current user: the binaries in ~/.local/bin, the
# user units in ~/.config/systemd/user, shell completions for every tool,
# man pages (docs/man, made by scripts/man.sh) and the README.
# Then: systemctl --user enable --now toastd.socket. scripts/uninstall.sh
# removes it all again.
#
#   --freedesktop        also make toastd the desktop's notification server
#                        (org.freedesktop.Notifications): a unit drop-in and a
#                        D-Bus service file. README.md says how to switch back.
#   TOASTD_BIN_DIR=dir   install these binaries instead of building (release) first
set -euo pipefail
cd "$(dirname "$0")/.."

freedesktop=0
for argument in "$@"; do
    case "$argument" in
        --freedesktop) freedesktop=1 ;;
        *) echo "usage: $0 [--freedesktop]" >&2; exit 64 ;;
    esac
done

BIN_DIR="${TOASTD_BIN_DIR:-}"
TOASTD=""
OVERLAY_BIN=""
TOASTCTL=""
if [ -z "$BIN_DIR" ]; then
    source scripts/ensure-packages.sh
    source scripts/build-release.sh
    ensure_packages build
    build_release --product toastd
    for product in toast-tail toast-notify; do
        quiet_build -c release --product "$product"
    done
    BIN_DIR="$RELEASE_BIN"
    TOASTD="$TOASTD_BIN"      # the Swift libraries linked in: smaller at rest
    TOASTCTL="$TOASTCTL_BIN"  # static: a one-shot toastctl add starts in about a millisecond
fi
PREFIX="$HOME/.local"
UNITS="${XDG_CONFIG_HOME:-$HOME/.config}/systemd/user"

install -d -m 755 "$PREFIX/bin" "$UNITS" "$PREFIX/share/doc/toastd" "$PREFIX/share/man/man1" "$PREFIX/share/man/man5" \
    "$PREFIX/share/bash-completion/completions" "$PREFIX/share/zsh/site-functions" \
    "${XDG_CONFIG_HOME:-$HOME/.config}/fish/completions"
for tool in toast-tail toast-notify; do
    install -m 755 "$BIN_DIR/$tool" "$PREFIX/bin/$tool"
done
install -m 755 "${OVERLAY_BIN:-$BIN_DIR/toast-overlay}" "$PREFIX/bin/toast-overlay"
install -m 755 "${TOASTD:-$BIN_DIR/toastd}" "$PREFIX/bin/toastd"
install -m 755 "${TOASTCTL:-$BIN_DIR/toastctl}" "$PREFIX/bin/toastctl"
# The units name %h/.local/bin/toastd, which is where it just went.
install -m 644 systemd/toastd.socket systemd/toastd.service systemd/toast-notify.service systemd/toast-overlay.service "$UNITS/"
install -m 644 README.md "$PREFIX/share/doc/toastd/README.md"
install -m 644 docs/man/*.1 "$PREFIX/share/man/man1/"
install -m 644 docs/man/toastd.toml.5 "$PREFIX/share/man/man5/"
if ((freedesktop)); then
    install -d -m 755 "$UNITS/toastd.service.d" "${XDG_DATA_HOME:-$HOME/.local/share}/dbus-1/services"
    install -m 644 systemd/toastd-freedesktop.conf "$UNITS/toastd.service.d/freedesktop.conf"
    install -m 644 systemd/org.freedesktop.Notifications.service "${XDG_DATA_HOME:-$HOME/.local/share}/dbus-1/services/"
    echo "toastd will own org.freedesktop.Notifications. Stop the previous notification daemon (dunst, mako, ...) first."
    # toastd draws them too: the overlay starts with the graphical session.
    if systemctl --user enable toast-overlay.service >/dev/null 2>&1; then
        echo "toast-overlay is enabled: it draws the toasts on screen from the next graphical session (or: systemctl --user start toast-overlay)."
    else
        echo "enable the overlay with: systemctl --user enable --now toast-overlay.service"
    fi
fi
for tool in toastd toastctl toast-tail toast-notify toast-overlay; do
    "$PREFIX/bin/$tool" --generate-completion-script bash >"$PREFIX/share/bash-completion/completions/$tool"
    "$PREFIX/bin/$tool" --generate-completion-script zsh >"$PREFIX/share/zsh/site-functions/_$tool"
    "$PREFIX/bin/$tool" --generate-completion-script fish >"${XDG_CONFIG_HOME:-$HOME/.config}/fish/completions/$tool.fish"
done

case ":$PATH:" in
    *":$PREFIX/bin:"*) ;;
    *) echo "warning: $PREFIX/bin is not on your PATH; add it (e.g. in ~/.profile: PATH=\"\$HOME/.local/bin:\$PATH\")" >&2 ;;
esac

if systemctl --user daemon-reload 2>/dev/null; then
    echo "installed. Start it with: systemctl --user enable --now toastd.socket"
else
    echo "installed (no systemd user manager here: run $PREFIX/bin/toastd yourself)."
fi
