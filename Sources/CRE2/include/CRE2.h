/* SPDX-License-Identifier: Apache-2.0 */
#pragma once
// A C face on RE2 (Debian libre2-dev), for Swift: compile a POSIX extended
// expression as glibc reads it without flags (^ and $ at the text's ends,
// . matches a newline), plus \d \w \s, and search a text with it.
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct toastd_re2 toastd_re2;

/// Compiles `pattern` (`length` bytes of UTF-8) with at most `max_memory`
/// bytes for its automata; NULL with a message in `error` (NUL-terminated,
/// cut to `error_size`) when RE2 refuses it.
toastd_re2 *toastd_re2_new(const char *pattern, size_t length, long max_memory, char *error, size_t error_size);

/// 1 when the expression matches somewhere in `text`, else 0.
int toastd_re2_search(const toastd_re2 *re, const char *text, size_t length);

/// The size of the compiled program (RE2's own measure of its cost).
int toastd_re2_program_size(const toastd_re2 *re);

void toastd_re2_free(toastd_re2 *re);

#ifdef __cplusplus
}
#endif
