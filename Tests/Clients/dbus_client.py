#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""A dbus-python client of org.freedesktop.Notifications, for toastd's
bridge tests: calls no command line can make, each on a connection of its own.

  dbus_client.py notify APP REPLACES_ID SUMMARY BODY [KEY LABEL]...   prints the id
  dbus_client.py notify-close APP SUMMARY                             Notify then CloseNotification, one connection
  dbus_client.py close ID                                             CloseNotification on a new connection
  dbus_client.py caps                                                 GetCapabilities, one per line
"""
import sys

import dbus


def notifications():
    bus = dbus.SessionBus()
    proxy = bus.get_object("org.freedesktop.Notifications", "/org/freedesktop/Notifications")
    return dbus.Interface(proxy, "org.freedesktop.Notifications")


def main(argv):
    command = argv[1]
    server = notifications()
    if command == "notify":
        app, replaces, summary, body = argv[2], int(argv[3]), argv[4], argv[5]
        actions = dbus.Array(argv[6:], signature="s")
        hints = dbus.Dictionary({"urgency": dbus.Byte(1)}, signature="sv")
        print(int(server.Notify(app, dbus.UInt32(replaces), "", summary, body, actions, hints, dbus.Int32(-1))))
    elif command == "notify-close":
        ident = server.Notify(argv[2], dbus.UInt32(0), "", argv[3], "", dbus.Array([], signature="s"),
                              dbus.Dictionary({}, signature="sv"), dbus.Int32(0))
        server.CloseNotification(dbus.UInt32(ident))
        print(int(ident))
    elif command == "close":
        server.CloseNotification(dbus.UInt32(int(argv[2])))
    elif command == "caps":
        for capability in server.GetCapabilities():
            print(str(capability))
    else:
        print("unknown command", command, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
