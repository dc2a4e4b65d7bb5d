/* SPDX-License-Identifier: Apache-2.0 */
// The epoll helpers are inline, in include/CEpoll.h; SwiftPM wants a source file.
#include "CEpoll.h"
