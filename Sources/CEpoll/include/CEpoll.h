/* SPDX-License-Identifier: Apache-2.0 */
#pragma once
// epoll, for the bridge's watcher thread (Sources/ToastFreedesktop/BusWatcher.swift)
// and toast-bench's fan-out reader (Sources/ToastBench/FanOutBenchmark.swift):
// Glibc's Swift module leaves it out, and `struct epoll_event` is packed.
#include <sys/epoll.h>
#include <stdint.h>

static inline int toastd_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

/// Adds (`add` != 0) or re-arms `fd` for `events` (poll(2) bits), one-shot
/// when `oneshot` != 0; `token` comes back from toastd_epoll_wait.
static inline int toastd_epoll_set(int epfd, int fd, int add, uint32_t events, int oneshot, uint64_t token) {
    struct epoll_event event = { .events = events | (oneshot ? EPOLLONESHOT : 0), .data = { .u64 = token } };
    return epoll_ctl(epfd, add ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &event);
}

/// Waits for up to `max` fds (at most 256); returns how many, with their
/// tokens in `tokens`, 0 on timeout, -1 on error. (toast-bench's fan-out reader.)
static inline int toastd_epoll_wait_many(int epfd, int timeout_ms, uint64_t *tokens, int max) {
    struct epoll_event events[256];
    int ready = epoll_wait(epfd, events, max < 256 ? max : 256, timeout_ms);
    for (int i = 0; i < ready; i++) tokens[i] = events[i].data.u64;
    return ready;
}

/// Waits for one fd; returns 1 with its token, 0 on timeout, -1 on error.
static inline int toastd_epoll_wait(int epfd, int timeout_ms, uint64_t *token) {
    struct epoll_event event;
    int ready = epoll_wait(epfd, &event, 1, timeout_ms);
    if (ready == 1) *token = event.data.u64;
    return ready;
}
