/* The C floor of the ingest benchmark: a single-threaded epoll server on a
 * Unix stream socket that writes every complete line straight back. What
 * toastd costs above this is framing in Swift, JSON, the scheduler and the
 * replies.
 *
 * usage: echo SOCKET */
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
};

static struct connection *connections[MAX_FD];

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

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: echo SOCKET\n");
        return 2;
    }
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    if (strlen(argv[1]) >= sizeof address.sun_path) return 2;
    strcpy(address.sun_path, argv[1]);
    unlink(argv[1]);
    int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (listener < 0 || bind(listener, (struct sockaddr *)&address, sizeof address) < 0 || listen(listener, 256) < 0) {
        perror("echo: listen");
        return 1;
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
                epoll_ctl(poller, EPOLL_CTL_DEL, fd, NULL);
                close(fd);
                free(c);
                connections[fd] = NULL;
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
            if (write_all(fd, c->in, complete) < 0) {
                epoll_ctl(poller, EPOLL_CTL_DEL, fd, NULL);
                close(fd);
                free(c);
                connections[fd] = NULL;
                continue;
            }
            memmove(c->in, c->in + complete, c->used - complete);
            c->used -= complete;
        }
    }
}
