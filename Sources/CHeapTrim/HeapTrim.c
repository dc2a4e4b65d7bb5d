/* SPDX-License-Identifier: Apache-2.0 */
// The target's one function is inline in include/HeapTrim.h; SwiftPM wants a source file.
#include "HeapTrim.h"
