/* SPDX-License-Identifier: Apache-2.0 */
#include "CodePages.h"

#include <fcntl.h>
#include <sys/mman.h>

void toastd_code_pages_reread(const struct toastd_code_span *spans, size_t count, int file) {
    for (size_t index = 0; index < count; index++) {
        madvise((void *)spans[index].address, spans[index].length, MADV_DONTNEED);
    }
    for (size_t index = 0; index < count; index++) {
        posix_fadvise(file, (off_t)spans[index].offset, (off_t)spans[index].length, POSIX_FADV_DONTNEED);
    }
    for (size_t index = 0; index < count; index++) {
        posix_fadvise(file, (off_t)spans[index].offset, (off_t)spans[index].length, POSIX_FADV_WILLNEED);
    }
}
