/* SPDX-License-Identifier: Apache-2.0 */
#pragma once
// What toastctl's front (Sources/toastctl) needs from the C library: it is
// Embedded Swift, which has no Glibc module, no CommandLine and no errno.
#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

/// The process's arguments, kept by a constructor (glibc hands every
/// initializer argc, argv and envp): Embedded Swift has no CommandLine.
int toastctl_front_argument_count(void);
char **toastctl_front_arguments(void);

static inline int toastctl_front_errno(void) { return errno; }

/// A connected Unix stream socket (close-on-exec) to `path` of `length`
/// bytes, or -1 when `path` does not fit or nothing accepts there.
int toastctl_front_connect(const char *path, size_t length);

/// The uid of the process on the other end of `fd` (SO_PEERCRED), or -1.
long long toastctl_front_peer_uid(int fd);

/// Waits up to `timeout_ms` for `fd` to be readable: 1, 0 on timeout, -1 on error.
int toastctl_front_wait_readable(int fd, int timeout_ms);
