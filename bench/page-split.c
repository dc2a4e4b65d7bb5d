/* SPDX-License-Identifier: Apache-2.0 */
/* Which of its own pages a request touches in toastd, page by page.
 *
 * smaps' `Referenced:` (set again after `echo 1 > /proc/PID/clear_refs`)
 * is counted per mapping, and toastd's executable is a handful of large
 * mappings. Loaded into toastd, this splits them: three seconds after
 * start, it marks every other page of the executable's mappings, the
 * .bss after them and the heap MADV_DONTDUMP, a flag that changes nothing
 * else but makes each page a mapping of its own. smaps then reads per page.
 *
 *   cc -O2 -shared -fPIC -o page-split.so bench/page-split.c -lpthread
 *   LD_PRELOAD=$PWD/page-split.so toastd --socket S --state-dir D &
 *   (wait 5 s; two warm `toastctl add`s; wait 3 s)
 *   echo 1 > /proc/$PID/clear_refs; toastctl add measured
 *   awk '/^[0-9a-f]+-/ {m = $1 " " $2 " " $3 " " ($6 == "" ? "anon" : $6)}
 *        /^Referenced:/ && $2 > 0 {print m, $2}' /proc/$PID/smaps > pages.txt
 *   python3 bench/page-attribution.py pages.txt .build-static-stdlib/release/toastd
 *
 * The attribution needs the unstripped build of the same link (the staged
 * toastd is it, stripped). docs/BENCHMARKS.md, "Page by page" has what it
 * found.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum { page = 4096, maxRanges = 64 };

static void *split(void *unused) {
    (void)unused;
    sigset_t all; /* toastd's signals are for the threads it starts */
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    sleep(3); /* toastd has mapped what it keeps, and grown its heap */
    char executable[512] = {0};
    ssize_t length = readlink("/proc/self/exe", executable, sizeof executable - 1);
    if (length <= 0) return NULL;
    executable[length] = 0;
    FILE *maps = fopen("/proc/self/maps", "r");
    if (!maps) return NULL;
    uintptr_t starts[maxRanges], ends[maxRanges];
    int ranges = 0;
    uintptr_t previousEnd = 0;
    int previousIsOwn = 0;
    char line[1024];
    while (ranges < maxRanges && fgets(line, sizeof line, maps)) {
        uintptr_t start, end;
        if (sscanf(line, "%lx-%lx", &start, &end) != 2) continue;
        int isExecutable = strstr(line, executable) != NULL;
        /* The .bss beyond the file: the anonymous mapping right after it. */
        int isBss = !isExecutable && previousIsOwn && start == previousEnd && strchr(line, '/') == NULL && !strstr(line, "[");
        if (isExecutable || isBss || strstr(line, "[heap]")) {
            starts[ranges] = start;
            ends[ranges] = end;
            ranges++;
        }
        previousEnd = end;
        previousIsOwn = isExecutable || isBss;
    }
    fclose(maps);
    int marked = 0;
    for (int i = 0; i < ranges; i++)
        for (uintptr_t address = starts[i]; address < ends[i]; address += 2 * page)
            if (madvise((void *)address, page, MADV_DONTDUMP) == 0) marked++;
    fprintf(stderr, "page-split: %d mappings, %d pages marked\n", ranges, marked);
    return NULL;
}

__attribute__((constructor)) static void start(void) {
    pthread_t thread;
    if (pthread_create(&thread, NULL, split, NULL) == 0) pthread_detach(thread);
}
