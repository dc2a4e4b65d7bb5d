#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""A GNotification client (GLib's Gio, through PyGObject), for toastd's
bridge tests: with no org.gtk.Notifications on the bus, GLib speaks
org.freedesktop.Notifications, sending `default` with an empty label for
the body's click and the app id as `desktop-entry`.

  gnotification_client.py APP_ID SECONDS
Sends one notification with a default action and a "Snooze" button, then
runs up to SECONDS and prints "activated NAME" for each action invoked.
"""
import sys

from gi.repository import Gio, GLib


def main(argv):
    app_id, seconds = argv[1], float(argv[2])
    app = Gio.Application(application_id=app_id, flags=Gio.ApplicationFlags.NON_UNIQUE)
    loop = GLib.MainLoop()

    def activated(action, parameter):
        print("activated", action.get_name(), flush=True)
        loop.quit()

    for name in ("open", "snooze"):
        action = Gio.SimpleAction.new(name, None)
        action.connect("activate", activated)
        app.add_action(action)
    app.register(None)
    notification = Gio.Notification.new("Build finished")
    notification.set_body("all 64 tests passed")
    notification.set_default_action("app.open")
    notification.add_button("Snooze", "app.snooze")
    app.send_notification("build", notification)
    print("sent", flush=True)
    GLib.timeout_add(int(seconds * 1000), loop.quit)
    loop.run()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
