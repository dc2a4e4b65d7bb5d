#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs toastd from source: the one release build (scripts/build-release.sh),
# user units generated from systemd/*.in with this prefix, completions for
# every tool, man pages and the README. It never runs sudo: missing build
# packages are listed with the command that installs them. Every file it
# puts down is listed in PREFIX/share/toastd/installed-files, which
# scripts/uninstall.sh removes, exactly.
#
#   scripts/install.sh [--prefix DIR] [--freedesktop]
#
#   --prefix DIR         where to install (default ~/.local, for this user:
#                        units in ~/.config/systemd/user). Any other prefix
#                        puts the units in DIR/lib/systemd/user.
#   --freedesktop        also make toastd the desktop's notification server
#                        (org.freedesktop.Notifications): a unit drop-in and a
#                        D-Bus service file, and toast-overlay enabled.
#   DESTDIR=dir          stage under dir (for packaging): nothing is enabled.
#   TOASTD_BIN_DIR=dir   install these binaries instead of building first
set -euo pipefail
cd "$(dirname "$0")/.."

freedesktop=0
prefix=""
while [ $# -gt 0 ]; do
    case "$1" in
        --freedesktop) freedesktop=1 ;;
        --prefix) prefix="${2:?--prefix takes a directory}"; shift ;;
        --prefix=*) prefix="${1#--prefix=}" ;;
        *) echo "usage: $0 [--prefix DIR] [--freedesktop]" >&2; exit 64 ;;
    esac
    shift
done
destdir="${DESTDIR:-}"

BIN_DIR="${TOASTD_BIN_DIR:-}"
if [ -z "$BIN_DIR" ]; then
    source scripts/ensure-packages.sh
    source scripts/build-release.sh
    ENSURE_PACKAGES_LIST_ONLY=1 ensure_packages build
    build_release --product toastd
    BIN_DIR="$STAGE_BIN"
fi

if [ -z "$prefix" ] || [ "$prefix" = "$HOME/.local" ]; then
    # For this user: the units where the user manager reads them.
    PREFIX="$HOME/.local"
    UNITS="${XDG_CONFIG_HOME:-$HOME/.config}/systemd/user"
    FISH="${XDG_CONFIG_HOME:-$HOME/.config}/fish/completions"
    DBUS_SERVICES="${XDG_DATA_HOME:-$HOME/.local/share}/dbus-1/services"
    user_install=1
else
    PREFIX="${prefix%/}"
    UNITS="$PREFIX/lib/systemd/user"
    FISH="$PREFIX/share/fish/vendor_completions.d"
    DBUS_SERVICES="$PREFIX/share/dbus-1/services"
    user_install=0
fi
DOC="$PREFIX/share/doc/toastd"
manifest="$PREFIX/share/toastd/installed-files"
installed=()

# put MODE SOURCE DEST: installs a file under DESTDIR and notes it.
put() {
    install -D -m "$1" "$2" "$destdir$3"
    installed+=("$3")
}
# unit NAME DEST: a unit from its template, with this prefix.
unit() {
    local rendered
    rendered="$(mktemp)"
    sed -e "s|@BINDIR@|$PREFIX/bin|g" -e "s|@DOCDIR@|$DOC|g" "systemd/$1.in" >"$rendered"
    put 644 "$rendered" "$2"
    rm -f "$rendered"
}

for tool in toastd toastctl toast-tail toast-notify toast-overlay; do
    put 755 "$BIN_DIR/$tool" "$PREFIX/bin/$tool"
done
# toastctl's front runs the full toastctl from here for every command it does not send itself.
put 755 "$BIN_DIR/toastctl-full" "$PREFIX/libexec/toastd/toastctl-full"
for name in toastd.socket toastd.service toast-notify.service toast-overlay.service; do
    unit "$name" "$UNITS/$name"
done
put 644 README.md "$DOC/README.md"
put 644 LICENSE "$DOC/LICENSE"
for page in docs/man/*.1; do put 644 "$page" "$PREFIX/share/man/man1/$(basename "$page")"; done
put 644 docs/man/toastd.toml.5 "$PREFIX/share/man/man5/toastd.toml.5"
if ((freedesktop)); then
    unit toastd-freedesktop.conf "$UNITS/toastd.service.d/freedesktop.conf"
    unit org.freedesktop.Notifications.service "$DBUS_SERVICES/org.freedesktop.Notifications.service"
fi
completions="$(mktemp -d)"
for tool in toastd toastctl toast-tail toast-notify toast-overlay; do
    for shell in bash zsh fish; do "$BIN_DIR/$tool" --generate-completion-script "$shell" >"$completions/$tool.$shell"; done
    # A completion is sourced, not run: no #! line.
    sed -i '1{/^#!/d}' "$completions/$tool.bash"
    put 644 "$completions/$tool.bash" "$PREFIX/share/bash-completion/completions/$tool"
    put 644 "$completions/$tool.zsh" "$PREFIX/share/zsh/site-functions/_$tool"
    put 644 "$completions/$tool.fish" "$FISH/$tool.fish"
done
rm -rf "$completions"
installed+=("$manifest")
install -d -m 755 "$destdir$(dirname "$manifest")"
printf '%s\n' "${installed[@]}" >"$destdir$manifest"

[ -z "$destdir" ] || { echo "staged in $destdir$PREFIX"; exit 0; }
if ((freedesktop)); then
    echo "toastd will own org.freedesktop.Notifications. Stop the previous notification daemon (dunst, mako, ...) first."
    # toastd draws them too: the overlay starts with the graphical session.
    if ((user_install)) && systemctl --user enable toast-overlay.service >/dev/null 2>&1; then
        echo "toast-overlay is enabled: it draws the toasts on screen from the next graphical session (or: systemctl --user start toast-overlay)."
    else
        echo "enable the overlay with: systemctl --user enable --now toast-overlay.service"
    fi
fi
case ":$PATH:" in
    *":$PREFIX/bin:"*) ;;
    *) echo "warning: $PREFIX/bin is not on your PATH; add it (e.g. in ~/.profile: PATH=\"$PREFIX/bin:\$PATH\")" >&2 ;;
esac
if ((user_install)) && systemctl --user daemon-reload 2>/dev/null; then
    echo "installed. Start it with: systemctl --user enable --now toastd.socket"
else
    echo "installed in $PREFIX (run $PREFIX/bin/toastd yourself, or enable its units)."
fi
