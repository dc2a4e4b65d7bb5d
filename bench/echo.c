/* SPDX-License-Identifier: Apache-2.0 */
/* The C floors of the ingest and fan-out benchmarks: a single-threaded
 * epoll server on a Unix stream socket.
 *
 * usage: echo SOCKET            writes every complete line straight back.
 *                               Started by socket activation (LISTEN_FDS=1),
 *                               it serves descriptor 3 instead.
 *                               What toastd costs above this is framing in
 *                               Swift, JSON, the scheduler and the replies.
 *        echo --fanout SOCKET   a line with "op":"subscribe" makes its
 *                               connection a subscriber (answered {"ok":true});
 *                               any other line is answered {"ok":true} and
 *                               sent on to every subscriber as
 *                               {"event":"presented", and the rest of the
 *                               line, one write each. The least any server
 *                               can do for the fan-out benchmark's add: one
 *                               send and one wake-up per subscriber. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define MAX_FD 4096
#define BUFFER (1 << 16)

struct connection {
    char in[BUFFER];
    size_t used;
    int subscriber;
};

static struct connection *connections[MAX_FD];
static int subscribers[MAX_FD];
static int subscriber_count;

static int write_all(int fd, const char *data, size_t length) {
    while (length > 0) {
        ssize_t n = send(fd, data, length, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN) {
                /* A slow reader: wait until it drains (the benchmark reads continuously). */
                fd_set set;
                FD_ZERO(&set);
                FD_SET(fd, &set);
                select(fd + 1, NULL, &set, NULL, NULL);
                continue;
            }
            return -1;
        }
        data += n;
        length -= (size_t)n;
    }
    return 0;
}

static void drop(int poller, int fd) {
    epoll_ctl(poller, EPOLL_CTL_DEL, fd, NULL);
    close(fd);
    if (connections[fd]->subscriber) {
        for (int i = 0; i < subscriber_count; i++) {
            if (subscribers[i] == fd) {
                subscribers[i] = subscribers[--subscriber_count];
                break;
            }
        }
    }
    free(connections[fd]);
    connections[fd] = NULL;
}

/* Fan-out mode: answers each complete line, and sends every line but a
 * subscription on to the subscribers. */
static int fan_out(int fd, struct connection *c, size_t complete) {
    static const char ok[] = "{\"ok\":true}\n";
    static const char prefix[] = "{\"event\":\"presented\",";
    static char event[BUFFER + sizeof prefix];
    char *line = c->in;
    while (line < c->in + complete) {
        char *end = memchr(line, '\n', (size_t)(c->in + complete - line));
        size_t length = (size_t)(end - line) + 1;
        if (memmem(line, length, "\"op\":\"subscribe\"", 16) != NULL) {
            if (!c->subscriber) {
                c->subscriber = 1;
                subscribers[subscriber_count++] = fd;
            }
        } else if (length > 1) {
            memcpy(event, prefix, sizeof prefix - 1);
            memcpy(event + sizeof prefix - 1, line + 1, length - 1);
            for (int i = 0; i < subscriber_count; i++) {
                write_all(subscribers[i], event, sizeof prefix - 1 + length - 1);
            }
        }
        if (write_all(fd, ok, sizeof ok - 1) < 0) return -1;
        line += length;
    }
    return 0;
}

int main(int argc, char **argv) {
    int fanout = argc == 3 && strcmp(argv[1], "--fanout") == 0;
    if (argc != 2 && !fanout) {
        fprintf(stderr, "usage: echo [--fanout] SOCKET\n");
        return 2;
    }
    const char *path = argv[argc - 1];
    int listener;
    const char *fds = getenv("LISTEN_FDS"), *listen_pid = getenv("LISTEN_PID");
    if (fds && listen_pid && strcmp(fds, "1") == 0 && atol(listen_pid) == (long)getpid()) {
        /* Started by socket activation (the start-up benchmark's floor): the socket is descriptor 3. */
        listener = 3;
        fcntl(listener, F_SETFL, fcntl(listener, F_GETFL) | O_NONBLOCK);
        fcntl(listener, F_SETFD, FD_CLOEXEC);
    } else {
        struct sockaddr_un address = {.sun_family = AF_UNIX};
        if (strlen(path) >= sizeof address.sun_path) return 2;
        strcpy(address.sun_path, path);
        unlink(path);
        listener = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (listener < 0 || bind(listener, (struct sockaddr *)&address, sizeof address) < 0 || listen(listener, 256) < 0) {
            perror("echo: listen");
            return 1;
        }
    }
    int poller = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event event = {.events = EPOLLIN, .data.fd = listener};
    epoll_ctl(poller, EPOLL_CTL_ADD, listener, &event);
    struct epoll_event ready[64];
    for (;;) {
        int count = epoll_wait(poller, ready, 64, -1);
        for (int i = 0; i < count; i++) {
            int fd = ready[i].data.fd;
            if (fd == listener) {
                int client;
                while ((client = accept4(listener, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
                    if (client >= MAX_FD) { close(client); continue; }
                    connections[client] = calloc(1, sizeof(struct connection));
                    struct epoll_event add = {.events = EPOLLIN, .data.fd = client};
                    epoll_ctl(poller, EPOLL_CTL_ADD, client, &add);
                }
                continue;
            }
            struct connection *c = connections[fd];
            ssize_t n = recv(fd, c->in + c->used, BUFFER - c->used, 0);
            if (n <= 0) {
                if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
                drop(poller, fd);
                continue;
            }
            c->used += (size_t)n;
            /* Echo every complete line; keep the partial one. */
            char *end = memrchr(c->in, '\n', c->used);
            if (end == NULL) {
                if (c->used == BUFFER) c->used = 0; /* an over-long line: drop it */
                continue;
            }
            size_t complete = (size_t)(end - c->in) + 1;
            if ((fanout ? fan_out(fd, c, complete) : write_all(fd, c->in, complete)) < 0) {
                drop(poller, fd);
                continue;
            }
            memmove(c->in, c->in + complete, c->used - complete);
            c->used -= complete;
        }
    }
}
