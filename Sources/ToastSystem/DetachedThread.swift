// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif

/// The one way toastd's modules start a thread of their own: for a loop
/// that blocks in the kernel for good (a read(2), an epoll_wait) and so has
/// no place on a pool or an event loop, or for one piece of work that must
/// not hold the loop up and leave nothing behind. It runs `body` once and
/// ends; no one joins it.
public enum DetachedThread {
    /// Starts `body` on a new thread; false if the system refused one.
    @discardableResult
    public static func start(_ body: @escaping @Sendable () -> Void) -> Bool {
        let box = Unmanaged.passRetained(Body(body))
        var thread = pthread_t()
        let created = pthread_create(
            &thread, nil,
            { argument in
                Unmanaged<Body>.fromOpaque(argument!).takeRetainedValue().run()
                return nil
            }, box.toOpaque()
        )
        guard created == 0 else {
            box.release()
            return false
        }
        pthread_detach(thread)
        return true
    }

    private final class Body: Sendable {
        let run: @Sendable () -> Void

        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }
}
