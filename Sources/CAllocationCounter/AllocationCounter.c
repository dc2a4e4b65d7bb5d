/* SPDX-License-Identifier: Apache-2.0 */
/* Counts allocations for the scheduler benchmark's "allocations per
 * operation". Defining malloc here interposes it over glibc's for the whole
 * process (toast-bench only); each call is counted with a relaxed atomic
 * and then handed to glibc's own implementation.
 *
 * Not under a sanitizer: AddressSanitizer and ThreadSanitizer replace the
 * malloc family themselves, and a block from glibc's malloc handed to the
 * sanitizer's free crashes the process at its first allocation (toast-bench
 * built by `swift test --sanitize=thread` did). There the count stays 0. */
#include "AllocationCounter.h"

#include <stddef.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define TOASTD_SANITIZED 1
#endif
#endif

#ifdef TOASTD_SANITIZED

unsigned long long toastd_allocation_count(void) { return 0; }

#else

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);

static unsigned long long allocations;

unsigned long long toastd_allocation_count(void) {
    return __atomic_load_n(&allocations, __ATOMIC_RELAXED);
}

void *malloc(size_t size) {
    __atomic_fetch_add(&allocations, 1, __ATOMIC_RELAXED);
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    __atomic_fetch_add(&allocations, 1, __ATOMIC_RELAXED);
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    if (pointer == NULL) __atomic_fetch_add(&allocations, 1, __ATOMIC_RELAXED);
    return __libc_realloc(pointer, size);
}

#endif
