// SPDX-License-Identifier: Apache-2.0
/// The keys toast-tail understands, decoded from raw terminal input.
public enum TailKey: Hashable, Sendable {
    case up, down, dismiss, clear, pause, quit, redraw
    /// Invoke the action with this 1-based number.
    case action(Int)
    /// Enter: invoke the toast's `default` action (a click, in freedesktop terms).
    case activate
}

/// Turns bytes read from a terminal in raw mode into keys. An escape
/// sequence split across reads is kept until its end arrives.
public struct KeyDecoder: Sendable {
    private var pending: [UInt8] = []

    public init() {}

    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [TailKey] {
        pending += bytes
        var keys: [TailKey] = []
        var index = 0
        while index < pending.count {
            let byte = pending[index]
            if byte == 0x1B {
                // ESC [ A / ESC O A (application mode): arrows; a lone ESC is ignored.
                guard index + 1 < pending.count else { break }
                let next = pending[index + 1]
                guard next == UInt8(ascii: "[") || next == UInt8(ascii: "O") else {
                    index += 1
                    continue
                }
                var end = index + 2
                while end < pending.count, !(0x40...0x7E).contains(pending[end]) { end += 1 }
                guard end < pending.count else { break }  // incomplete: wait for more
                switch pending[end] {
                case UInt8(ascii: "A"): keys.append(.up)
                case UInt8(ascii: "B"): keys.append(.down)
                default: break
                }
                index = end + 1
                continue
            }
            switch byte {
            case UInt8(ascii: "k"): keys.append(.up)
            case UInt8(ascii: "j"): keys.append(.down)
            case UInt8(ascii: "d"), UInt8(ascii: "x"): keys.append(.dismiss)
            case UInt8(ascii: "c"): keys.append(.clear)
            case UInt8(ascii: "p"): keys.append(.pause)
            case UInt8(ascii: "q"), 0x03, 0x04: keys.append(.quit)  // q, Ctrl-C, Ctrl-D
            case 0x0C: keys.append(.redraw)  // Ctrl-L
            case 0x0D, 0x0A: keys.append(.activate)  // Enter
            case UInt8(ascii: "1")...UInt8(ascii: "9"): keys.append(.action(Int(byte - UInt8(ascii: "0"))))
            default: break
            }
            index += 1
        }
        pending.removeFirst(index)
        return keys
    }
}
