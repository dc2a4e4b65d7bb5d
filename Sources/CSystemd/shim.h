#pragma once
// The parts of libsystemd toastd uses: sd_notify, sd_listen_fds, sd_watchdog_enabled, sd_journal_sendv, sd-bus.
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>
#include <sys/uio.h>
// sd-bus, for the org.freedesktop.Notifications bridge (Sources/ToastFreedesktop).
#include <systemd/sd-bus.h>
