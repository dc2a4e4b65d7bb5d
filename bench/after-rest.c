/* SPDX-License-Identifier: Apache-2.0 */
/* What the first work after a rest costs on this machine, apart from any
 * server: reads a buffer, sleeps, then times 30 chunks of work.
 *
 *   cc -O2 -o after-rest bench/after-rest.c
 *   ./after-rest 600 compute      # 100,000 xorshift steps a chunk: registers only
 *   ./after-rest 600 memory       # a load every 64 bytes over 1 MiB of the buffer a chunk
 *   ./after-rest 600 pages        # a load every 4 KiB over 1 MiB a chunk, the buffer in 4 KiB pages
 *   ./after-rest 600 huge-pages   # the same, the buffer in 2 MiB pages (MADV_HUGEPAGE)
 *
 * It prints each chunk's wall and CPU time in µs. docs/BENCHMARKS.md, "A
 * rest costs by the page": after ten minutes the compute chunks ran as fast
 * as ever, and the memory chunks' first pass over each MiB 20 to 95 times
 * slower than warm (396 to 1,617 µs against 16 to 20). "Huge pages for the
 * hot code": in 4 KiB pages each page's first touch after the rest cost 3.7
 * to 11 µs (the first eight chunks); in 2 MiB pages the first MiB of each
 * cost 118 to 305 µs, the second 4 to 108.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <unistd.h>

static uint64_t nanoseconds(clockid_t clock) {
    struct timespec now;
    clock_gettime(clock, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

int main(int argc, char **argv) {
    const char *mode = argc == 3 ? argv[2] : "";
    int memory = strcmp(mode, "memory") == 0, pages = strcmp(mode, "pages") == 0, huge = strcmp(mode, "huge-pages") == 0;
    if (!memory && !pages && !huge && strcmp(mode, "compute") != 0) {
        fprintf(stderr, "usage: after-rest SECONDS compute|memory|pages|huge-pages\n");
        return 2;
    }
    unsigned seconds = (unsigned)atoi(argv[1]);
    enum { chunks = 30, mebibyte = 1 << 20, buffers = 8, huge_page = 2 << 20 };
    /* The buffer at a 2 MiB boundary, in pages of the size asked for. */
    unsigned char *reserved = mmap(NULL, (size_t)buffers * mebibyte + huge_page, PROT_READ | PROT_WRITE,
                                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (reserved == MAP_FAILED) return 1;
    unsigned char *buffer = (unsigned char *)(((uintptr_t)reserved + huge_page - 1) & ~(uintptr_t)(huge_page - 1));
    madvise(buffer, (size_t)buffers * mebibyte, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    memset(buffer, 1, (size_t)buffers * mebibyte);
    size_t stride = pages || huge ? 4096 : 64;
    volatile uint64_t sink = 0;
    /* Read once before the rest, as a server answers a request before its rest. */
    for (size_t offset = 0; offset < (size_t)buffers * mebibyte; offset += 64) sink += buffer[offset];
    uint64_t state = 88172645463325252u, wall[chunks], cpu[chunks];
    sleep(seconds);
    for (int chunk = 0; chunk < chunks; chunk++) {
        uint64_t wall0 = nanoseconds(CLOCK_MONOTONIC), cpu0 = nanoseconds(CLOCK_THREAD_CPUTIME_ID);
        if (memory || pages || huge) {
            const unsigned char *base = buffer + (size_t)(chunk % buffers) * mebibyte;
            for (size_t offset = 0; offset < mebibyte; offset += stride) sink += base[offset];
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
    printf("%s after %u s, each chunk's wall/CPU µs:", mode, seconds);
    for (int chunk = 0; chunk < chunks; chunk++) printf(" %.0f/%.0f", wall[chunk] / 1e3, cpu[chunk] / 1e3);
    printf("\n");
    munmap(reserved, (size_t)buffers * mebibyte + huge_page);
    return 0;
}
