/* SPDX-License-Identifier: Apache-2.0 */
#ifndef TOASTD_HEAP_TRIM_H
#define TOASTD_HEAP_TRIM_H

#include <malloc.h>

/// glibc's malloc_trim(0): hands the free pages of every malloc arena back
/// to the kernel. Swift's Glibc module does not export it.
static inline int toastd_malloc_trim(void) { return malloc_trim(0); }

/// mallopt(M_ARENA_MAX, 1): every thread allocates from the one heap. Call
/// it before the second thread starts.
static inline int toastd_single_malloc_arena(void) { return mallopt(M_ARENA_MAX, 1); }

#endif
