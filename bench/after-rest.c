/* SPDX-License-Identifier: Apache-2.0 */
/* What the first work after a rest costs on this machine, apart from any
 * server: reads an 8 MiB buffer, sleeps, then times 30 chunks of work.
 *
 *   cc -O2 -o after-rest bench/after-rest.c
 *   ./after-rest 600 compute   # 100,000 xorshift steps a chunk: registers only
 *   ./after-rest 600 memory    # a load every 64 bytes over 1 MiB of the buffer a chunk
 *
 * It prints each chunk's wall and CPU time in µs. docs/BENCHMARKS.md, "A
 * rest costs by the page": after ten minutes the compute chunks ran as fast
 * as ever, and the memory chunks' first pass over each MiB 20 to 95 times
 * slower than warm (396 to 1,617 µs against 16 to 20).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static uint64_t nanoseconds(clockid_t clock) {
    struct timespec now;
    clock_gettime(clock, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

int main(int argc, char **argv) {
    if (argc != 3 || (strcmp(argv[2], "compute") != 0 && strcmp(argv[2], "memory") != 0)) {
        fprintf(stderr, "usage: after-rest SECONDS compute|memory\n");
        return 2;
    }
    unsigned seconds = (unsigned)atoi(argv[1]);
    int memory = strcmp(argv[2], "memory") == 0;
    enum { chunks = 30, mebibyte = 1 << 20, buffers = 8 };
    unsigned char *buffer = malloc((size_t)buffers * mebibyte);
    if (buffer == NULL) return 1;
    memset(buffer, 1, (size_t)buffers * mebibyte);
    volatile uint64_t sink = 0;
    /* Read once before the rest, as a server answers a request before its rest. */
    for (size_t offset = 0; offset < (size_t)buffers * mebibyte; offset += 64) sink += buffer[offset];
    uint64_t state = 88172645463325252u, wall[chunks], cpu[chunks];
    sleep(seconds);
    for (int chunk = 0; chunk < chunks; chunk++) {
        uint64_t wall0 = nanoseconds(CLOCK_MONOTONIC), cpu0 = nanoseconds(CLOCK_THREAD_CPUTIME_ID);
        if (memory) {
            const unsigned char *base = buffer + (size_t)(chunk % buffers) * mebibyte;
            for (size_t offset = 0; offset < mebibyte; offset += 64) sink += base[offset];
        } else {
            for (int step = 0; step < 100000; step++) {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
            }
        }
        cpu[chunk] = nanoseconds(CLOCK_THREAD_CPUTIME_ID) - cpu0;
        wall[chunk] = nanoseconds(CLOCK_MONOTONIC) - wall0;
    }
    sink += state;
    printf("%s after %u s, each chunk's wall/CPU µs:", argv[2], seconds);
    for (int chunk = 0; chunk < chunks; chunk++) printf(" %.0f/%.0f", wall[chunk] / 1e3, cpu[chunk] / 1e3);
    printf("\n");
    free(buffer);
    return 0;
}
