// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif

/// The terminal toast-tail draws on: raw input, the alternate screen, a
/// hidden cursor, and the way back to how it was found. `restore()` is safe
/// to call more than once, and is called on every way out.
public final class TerminalSession {
    public let output: Int32
    public let input: Int32
    private var saved: termios?
    private var active = false

    public init(output: Int32 = STDOUT_FILENO, input: Int32 = STDIN_FILENO) {
        self.output = output
        self.input = input
    }

    public static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

    /// The terminal's size in columns and rows, or nil when it is not a terminal.
    public static func size(of fd: Int32 = STDOUT_FILENO) -> (columns: Int, rows: Int)? {
        var size = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else { return nil }
        return (Int(size.ws_col), Int(size.ws_row))
    }

    /// Switches to the alternate screen with the cursor hidden and, when
    /// input is a terminal, raw keys (no echo, no line buffering, no signals
    /// from Ctrl-C: it arrives as a key).
    public func enter(rawInput: Bool) {
        if rawInput, Self.isTerminal(input) {
            var attributes = termios()
            if tcgetattr(input, &attributes) == 0 {
                saved = attributes
                attributes.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG | IEXTEN)
                attributes.c_iflag &= ~tcflag_t(IXON | ICRNL)
                withUnsafeMutableBytes(of: &attributes.c_cc) { cc in
                    cc[Int(VMIN)] = 1
                    cc[Int(VTIME)] = 0
                }
                tcsetattr(input, TCSAFLUSH, &attributes)
            }
        }
        write("\u{1B}[?1049h\u{1B}[?25l\u{1B}[H\u{1B}[2J")
        active = true
    }

    /// Leaves the alternate screen, shows the cursor, resets colours and restores the input mode.
    public func restore() {
        guard active else { return }
        active = false
        write("\u{1B}[?2026l\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l")
        if var saved {
            tcsetattr(input, TCSAFLUSH, &saved)
        }
        saved = nil
    }

    public func write(_ text: String) {
        _ = Self.writeAll(output, Array(text.utf8))
    }

    /// Writes every byte to `fd`, retrying interrupted and partial writes;
    /// false if the descriptor fails (a closed terminal or pipe).
    public static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            if written <= 0 { return false }
            offset += written
        }
        return true
    }

    deinit { restore() }
}

/// Signals delivered as bytes on a pipe, so the poll loop sees them like
/// any other input (the self-pipe trick): no work runs in a signal handler.
public enum SignalPipe {
    nonisolated(unsafe) private static var writeEnd: Int32 = -1

    /// Installs handlers for `signals` and returns the pipe's read end.
    public static func install(_ signals: [Int32]) -> Int32 {
        var fds: [Int32] = [0, 0]
        _ = pipe(&fds)
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, O_NONBLOCK)
        }
        writeEnd = fds[1]
        for signal in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                var byte = UInt8(truncatingIfNeeded: number)
                _ = Glibc.write(SignalPipe.writeEnd, &byte, 1)
            }
            action.sa_flags = SA_RESTART
            sigemptyset(&action.sa_mask)
            sigaction(signal, &action, nil)
        }
        unblock(signals)
        return fds[0]
    }

    /// Unblocks `signals`: a parent may have left them blocked, and the
    /// signal mask is inherited across exec.
    public static func unblock(_ signals: [Int32]) {
        var mask = sigset_t()
        sigemptyset(&mask)
        for signal in signals { sigaddset(&mask, signal) }
        pthread_sigmask(SIG_UNBLOCK, &mask, nil)
    }

    /// The signals that arrived since the last call.
    public static func drain(_ fd: Int32) -> [Int32] {
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = read(fd, &buffer, buffer.count)
        return count > 0 ? buffer[..<count].map { Int32($0) } : []
    }
}
