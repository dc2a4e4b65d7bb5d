/* Counts allocations for the scheduler benchmark's "allocations per
 * operation". Defining malloc here interposes it over glibc's for the whole
 * process (toast-bench only); each call is counted with a relaxed atomic
 * and then handed to glibc's own implementation. */
#include "AllocationCounter.h"

#include <stddef.h>

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
