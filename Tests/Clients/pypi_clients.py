#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Clients from PyPI against org.freedesktop.Notifications, for toastd's
bridge tests (scripts/test.sh installs them into .build/pyclients).

  pypi_clients.py notify2 SUMMARY         notify2: show with a Retry action, print the id, close it
  pypi_clients.py desktop-notifier TITLE  desktop-notifier: send with a button and an on-click
"""
import asyncio
import sys


def with_notify2(summary):
    import notify2

    notify2.init("notify2-app")
    notification = notify2.Notification(summary, "from notify2")
    notification.add_action("retry", "Retry", lambda n, action: None)
    notification.show()
    print(notification.id, flush=True)
    notification.close()


async def with_desktop_notifier(title):
    from desktop_notifier import Button, DesktopNotifier

    notifier = DesktopNotifier(app_name="desktop-notifier-app")
    identifier = await notifier.send(
        title=title, message="from desktop-notifier",
        buttons=[Button(title="Open", on_pressed=lambda: None)], on_clicked=lambda: None,
    )
    # Its own identifier (a UUID), not the server's id.
    print(getattr(identifier, "identifier", identifier), flush=True)


def main(argv):
    if argv[1] == "notify2":
        with_notify2(argv[2])
    elif argv[1] == "desktop-notifier":
        asyncio.run(with_desktop_notifier(argv[2]))
    else:
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
