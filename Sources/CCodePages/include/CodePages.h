/* SPDX-License-Identifier: Apache-2.0 */
#ifndef TOASTD_CODE_PAGES_H
#define TOASTD_CODE_PAGES_H

#include <stddef.h>
#include <stdint.h>

/// A range of toastd's executable mapped at `address`, `offset` bytes into the file.
struct toastd_code_span {
    uintptr_t address;
    size_t length;
    int64_t offset;
};

/// Unmaps each span (MADV_DONTNEED), then drops its pages from the page
/// cache of `file` (POSIX_FADV_DONTNEED: those no process maps), then asks
/// for them to be read back (POSIX_FADV_WILLNEED, in small folios).
///
/// Between the unmapping and the dropping, the pages the calling thread
/// runs on are mapped again, and so kept with the folio they are in; this
/// one function is all it runs there, and scripts/toastd.order puts it in
/// the hot blocks that toastd maps with huge pages, which no span covers.
/// Built with -fno-plt, it calls the C library through the GOT, bound when
/// toastd is loaded: neither the PLT's page nor a lazy binding's read of
/// the executable's symbol tables comes between.
void toastd_code_pages_reread(const struct toastd_code_span *spans, size_t count, int file);

#endif
