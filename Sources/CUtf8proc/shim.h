/* SPDX-License-Identifier: Apache-2.0 */
#pragma once
// utf8proc: the terminal width of a code point (utf8proc_charwidth), for
// toast-tail's layout (Sources/ToastTail/DisplayWidth.swift).
#include <utf8proc.h>
