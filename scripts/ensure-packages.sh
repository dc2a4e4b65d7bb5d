# SPDX-License-Identifier: Apache-2.0
# Sourced by the scripts: installs, with apt-get, the Debian packages that
# are missing for the given needs. Usage: ensure_packages build [tests].
# With ENSURE_PACKAGES_LIST_ONLY=1 it installs nothing: it lists what is
# missing with the command to install it, and fails.
ensure_packages() {
    local missing=()
    for need in "$@"; do
        case "$need" in
            build)
                pkg-config --exists libsystemd 2>/dev/null || missing+=(libsystemd-dev pkg-config)
                [ -e /usr/include/sqlite3.h ] || missing+=(libsqlite3-dev)
                # toml++, compiled in header-only by CTomlReader (the configuration reader).
                [ -e /usr/include/toml++/toml.h ] || missing+=(libtomlplusplus-dev g++)
                [ -e /usr/include/utf8proc.h ] || missing+=(libutf8proc-dev)
                # toast-overlay draws with wayland-client or xcb, cairo and
                # pango, and reads images with gdk-pixbuf.
                [ -e /usr/include/wayland-client.h ] || missing+=(libwayland-dev)
                [ -e /usr/include/pango-1.0/pango/pangocairo.h ] || missing+=(libpango1.0-dev libcairo2-dev)
                [ -e /usr/include/xcb/shape.h ] || missing+=(libxcb1-dev libxcb-shape0-dev)
                [ -e /usr/include/gdk-pixbuf-2.0/gdk-pixbuf/gdk-pixbuf.h ] || missing+=(libgdk-pixbuf-2.0-dev)
                # RE2, measured against the rules' matcher by toast-bench (built with the rest).
                [ -e /usr/include/re2/re2.h ] || missing+=(libre2-dev g++) ;;
            tests)
                command -v socat >/dev/null || missing+=(socat)
                command -v tmux >/dev/null || missing+=(tmux)
                command -v systemd-socket-activate >/dev/null || missing+=(systemd)
                # The freedesktop bridge's tests: a private bus and real clients.
                command -v dbus-daemon >/dev/null || missing+=(dbus-daemon)
                command -v notify-send >/dev/null || missing+=(libnotify-bin)
                command -v gdbus >/dev/null || missing+=(libglib2.0-bin)
                # Real clients of the bridge: a libnotify C program built in
                # the tests, and dbus-python.
                pkg-config --exists libnotify 2>/dev/null || missing+=(libnotify-dev)
                command -v cc >/dev/null || missing+=(gcc libc6-dev)
                /usr/bin/python3 -c "import dbus" 2>/dev/null || missing+=(python3-dbus)
                /usr/bin/python3 -c "from gi.repository import Gio" 2>/dev/null || missing+=(python3-gi gir1.2-glib-2.0)
                # toast-notify's test: a real dunst under Xvfb.
                command -v dunst >/dev/null || missing+=(dunst)
                command -v Xvfb >/dev/null || missing+=(xvfb xauth)
                # toast-notify's test with mako: a headless sway.
                command -v sway >/dev/null || missing+=(sway)
                command -v mako >/dev/null || missing+=(mako-notifier)
                # toast-overlay's screenshots (grim on Wayland, ImageMagick's
                # import on X11), its clicks (xdotool) and swaymsg (sway's).
                command -v grim >/dev/null || missing+=(grim)
                command -v import >/dev/null || missing+=(imagemagick)
                command -v xdotool >/dev/null || missing+=(xdotool)
                # Toasts from another machine: a real sshd and ssh.
                command -v sshd >/dev/null || [ -x /usr/sbin/sshd ] || missing+=(openssh-server)
                command -v ssh >/dev/null || missing+=(openssh-client)
                # The man pages, rendered as a reader sees them.
                command -v man >/dev/null || missing+=(man-db) ;;
            package)
                command -v dpkg-shlibdeps >/dev/null || missing+=(dpkg-dev)
                command -v objcopy >/dev/null || missing+=(binutils)
                command -v lintian >/dev/null || missing+=(lintian) ;;
            bench)
                command -v cc >/dev/null || missing+=(gcc libc6-dev)
                command -v socat >/dev/null || missing+=(socat) ;;
            overlay)
                command -v sway >/dev/null || missing+=(sway)
                command -v mako >/dev/null || missing+=(mako-notifier)
                command -v notify-send >/dev/null || missing+=(libnotify-bin)
                command -v python3 >/dev/null || missing+=(python3) ;;
            dunst)
                command -v dunst >/dev/null || missing+=(dunst)
                command -v Xvfb >/dev/null || missing+=(xvfb xauth)
                command -v notify-send >/dev/null || missing+=(libnotify-bin)
                command -v dbus-daemon >/dev/null || missing+=(dbus-daemon) ;;
        esac
    done
    ((${#missing[@]})) || return 0
    command -v apt-get >/dev/null || { echo "please install: ${missing[*]}" >&2; return 1; }
    # install.sh installs nothing itself: it says what is missing and how to get it.
    if [ "${ENSURE_PACKAGES_LIST_ONLY:-0}" = 1 ]; then
        echo "missing build packages: ${missing[*]}" >&2
        echo "install them with: sudo apt-get install ${missing[*]}" >&2
        return 1
    fi
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        -o DPkg::Lock::Timeout=300 "${missing[@]}" >/dev/null
}
