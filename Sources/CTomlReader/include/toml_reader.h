/* SPDX-License-Identifier: Apache-2.0 */
#pragma once
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A TOML document read by toml++ (Debian libtomlplusplus-dev, compiled in
 * header-only), handed to Swift as one buffer (ConfigDocument.swift reads
 * it). On success `tree` holds the root table, encoded in native byte
 * order as:
 *   'T' u32 count, then count times: u32 key length, the key, a value
 *   'A' u32 count, then count values
 *   'S' u32 length, UTF-8 bytes     (a string)
 *   'I' i64                          (an integer)
 *   'D' f64                          (a float)
 *   'B' u8 0 or 1                    (a boolean)
 *   'd' u32 length, UTF-8 bytes     (a date, time or date-time as TOML writes it)
 * On a syntax error `tree` is NULL and `error`, `line` and `column` say
 * what and where (1-based). */
typedef struct toastd_toml {
    unsigned char *tree;
    size_t tree_length;
    char *error;
    uint32_t line;
    uint32_t column;
} toastd_toml;

void toastd_toml_parse(const char *text, size_t length, toastd_toml *result);
void toastd_toml_free(toastd_toml *result);

#ifdef __cplusplus
}
#endif
