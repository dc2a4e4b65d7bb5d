/* SPDX-License-Identifier: Apache-2.0 */
#ifndef TOASTD_ALLOCATION_COUNTER_H
#define TOASTD_ALLOCATION_COUNTER_H

/// How many times malloc, calloc and realloc (with a new block) have been
/// called in this process. toast-bench links this target, whose malloc
/// family replaces glibc's for the whole process and counts each call
/// (always 0 in a build with a sanitizer, which has its own malloc).
unsigned long long toastd_allocation_count(void);

#endif
