import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Hands work to the bridge's thread from any other thread: the letters
/// wait in a locked queue and a byte in a pipe wakes the thread's poll
/// (Glibc's Swift module has no eventfd). Only the
/// bridge's thread takes them out, so what they carry (sd-bus messages)
/// is only ever touched there.
final class BridgeMailbox<Letter: Sendable>: Sendable {
    /// The letters, or nil once closed.
    private let letters = Mutex<[Letter]?>([])
    /// Readable while letters wait.
    let fileDescriptor: Int32
    private let wakeUp: Int32

    init() {
        var fds: [Int32] = [-1, -1]
        pipe(&fds)
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, O_NONBLOCK)
        }
        fileDescriptor = fds[0]
        wakeUp = fds[1]
    }

    deinit {
        Glibc.close(fileDescriptor)
        Glibc.close(wakeUp)
    }

    func post(_ letter: Letter) {
        let wasEmpty = letters.withLock { letters in
            letters?.append(letter)
            return letters?.count == 1
        }
        // One wake-up per batch: the reader takes every letter at once.
        guard wasEmpty else { return }
        var byte: UInt8 = 1
        _ = write(wakeUp, &byte, 1)
    }

    /// Every waiting letter, in the order posted.
    func take() -> [Letter] {
        var bytes = (UInt64(0), UInt64(0))
        while withUnsafeMutableBytes(of: &bytes, { read(fileDescriptor, $0.baseAddress, $0.count) }) == 16 {}
        return letters.withLock { letters in
            defer { letters?.removeAll(keepingCapacity: true) }
            return letters ?? []
        }
    }

    /// From now on letters are dropped: the reader has gone. Returns the
    /// letters it had not taken yet.
    func close() -> [Letter] {
        letters.withLock { letters in
            defer { letters = nil }
            return letters ?? []
        }
    }
}
