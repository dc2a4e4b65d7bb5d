/* SPDX-License-Identifier: Apache-2.0 */
/* The floor for a one-shot client: spawn, connect, write one add line, read
 * the reply line, exit. No JSON library, no allocation beyond the stack. What
 * toastctl costs above this is toastctl's own start-up and work.
 *
 * usage: oneshot SOCKET MESSAGE [--any-reply]
 *   --any-reply   any reply line is success (against bench/echo.c, which
 *                 answers with the line itself), not only "ok":true */
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int main(int argc, char **argv) {
    int any_reply = argc == 4 && strcmp(argv[3], "--any-reply") == 0;
    if (argc != 3 && !any_reply) {
        fprintf(stderr, "usage: oneshot SOCKET MESSAGE [--any-reply]\n");
        return 2;
    }
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    if (strlen(argv[1]) >= sizeof address.sun_path) return 2;
    strcpy(address.sun_path, argv[1]);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&address, sizeof address) < 0) {
        perror("oneshot: connect");
        return 1;
    }
    char line[8192];
    int length = snprintf(line, sizeof line, "{\"op\":\"add\",\"toast\":{\"message\":\"%s\"}}\n", argv[2]);
    if (length <= 0 || length >= (int)sizeof line) return 2;
    for (int sent = 0; sent < length;) {
        ssize_t n = write(fd, line + sent, (size_t)(length - sent));
        if (n <= 0) { perror("oneshot: write"); return 1; }
        sent += (int)n;
    }
    char reply[65536];
    size_t received = 0;
    for (;;) {
        ssize_t n = read(fd, reply + received, sizeof reply - 1 - received);
        if (n <= 0) { fprintf(stderr, "oneshot: no reply\n"); return 1; }
        received += (size_t)n;
        if (memchr(reply, '\n', received) || received == sizeof reply - 1) break;
    }
    reply[received] = 0;
    return any_reply || strstr(reply, "\"ok\":true") ? 0 : 1;
}
