// SPDX-License-Identifier: Apache-2.0
#define _GNU_SOURCE
#include "CToastctlFront.h"
#include <sys/un.h>

static int toastctl_front_argc;
static char **toastctl_front_argv;

__attribute__((constructor)) static void toastctl_front_keep_arguments(int argc, char **argv, char **envp) {
    (void)envp;
    toastctl_front_argc = argc;
    toastctl_front_argv = argv;
}

int toastctl_front_argument_count(void) { return toastctl_front_argc; }
char **toastctl_front_arguments(void) { return toastctl_front_argv; }

int toastctl_front_connect(const char *path, size_t length) {
    struct sockaddr_un address = { .sun_family = AF_UNIX };
    if (length == 0 || length >= sizeof(address.sun_path) || memchr(path, 0, length) != NULL) return -1;
    memcpy(address.sun_path, path, length);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    int result;
    do {
        result = connect(fd, (struct sockaddr *)&address, sizeof(address));
    } while (result != 0 && errno == EINTR);
    if (result != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

long long toastctl_front_peer_uid(int fd) {
    struct ucred credentials;
    socklen_t length = sizeof(credentials);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    return (long long)credentials.uid;
}

int toastctl_front_wait_readable(int fd, int timeout_ms) {
    struct pollfd request = { .fd = fd, .events = POLLIN };
    int ready;
    do {
        ready = poll(&request, 1, timeout_ms);
    } while (ready < 0 && errno == EINTR);
    return ready;
}
