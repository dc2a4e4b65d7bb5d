// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Runs `body(index)` on `count` dedicated threads at once and waits for all.
/// Dedicated threads, not Dispatch's pool: a load generator's blocked
/// readers would starve a pool that has one thread per core.
public func onThreads(_ count: Int, stackSize: Int = 512 << 10, _ body: @escaping @Sendable (Int) -> Void) {
    let done = DispatchSemaphore(value: 0)
    for index in 0..<count {
        let thread = Thread {
            body(index)
            done.signal()
        }
        thread.stackSize = stackSize
        thread.start()
    }
    for _ in 0..<count { done.wait() }
}

/// A value several threads update under a lock.
public final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    public init(_ value: Value) { self.value = value }

    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    public var current: Value { withLock { $0 } }
}
