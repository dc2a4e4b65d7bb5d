/* SPDX-License-Identifier: Apache-2.0 */
#pragma once
// The parts of libsystemd toastd uses: sd_notify, sd_listen_fds, sd_watchdog_enabled, sd_journal_sendv, sd-bus.
// Only the Systemd module (sd-daemon, sd-journal) and SDBus (sd-bus) import it.
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>
#include <sys/uio.h>
// sd-bus, wrapped by Sources/SDBus.
#include <systemd/sd-bus.h>
