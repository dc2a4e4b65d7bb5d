// The epoll helpers are inline, in include/CEpoll.h; SwiftPM wants a source file.
#include "CEpoll.h"
