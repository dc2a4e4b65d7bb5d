// SPDX-License-Identifier: Apache-2.0
/// Where a companion of the daemon (the freedesktop bridge) reports its
/// state: a member of `status` and a note on systemd's STATUS= line. Safe
/// from any thread: the hub is updated on its own event loop.
public struct StatusBoard: Sendable {
    let hub: ToastHub

    public func set(_ key: String, _ value: String) {
        let hub = self.hub
        hub.loop.execute { hub.board[key] = value }
    }
}
