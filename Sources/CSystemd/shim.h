#pragma once
// The parts of libsystemd toastd uses: sd_notify, sd_listen_fds, sd_watchdog_enabled, sd_journal_sendv.
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>
#include <sys/uio.h>
