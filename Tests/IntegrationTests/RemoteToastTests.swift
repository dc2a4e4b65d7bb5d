// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import ToastKit

/// Toasts from another machine through SSH's Unix-socket forwarding
/// (issue #43): a real sshd on the loopback address, a user who logs in with
/// a key made for the test, `ssh -R REMOTE_SOCKET:LOCAL_SOCKET`, and
/// `toastctl add` on the remote side. toastd sees the forwarding ssh, which
/// runs as the user, so its peer-credential check lets it in; on the remote
/// side the socket is the user's alone (sshd's StreamLocalBindMask), so
/// another uid cannot reach it.
@Suite("toasts from another machine", .serialized)
struct RemoteToastTests {
    static let user = getpwuid(1000).map { (name: String(cString: $0.pointee.pw_name), uid: $0.pointee.pw_uid, gid: $0.pointee.pw_gid) }
    static let available = getuid() == 0 && user != nil
        && ["/usr/sbin/sshd", "/usr/bin/ssh", "/usr/bin/ssh-keygen", "/usr/bin/setpriv"].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }

    /// argv run as the test's user (uid 1000), with a clean environment.
    static func asUser(_ arguments: [String], environment: [String: String] = [:]) -> [String] {
        let user = user!
        let variables = ["PATH=/usr/bin:/bin", "HOME=/tmp"] + environment.map { "\($0.key)=\($0.value)" }
        return ["/usr/bin/setpriv", "--reuid=\(user.uid)", "--regid=\(user.gid)", "--clear-groups", "/usr/bin/env", "-i"] + variables + arguments
    }

    @Test(.enabled(if: available))
    func aToastFromAnotherMachineArrivesThroughSSH() throws {
        let user = Self.user!
        var template = Array("/tmp/toastd-ssh-XXXXXX".utf8CString)
        let directory = String(cString: try #require(mkdtemp(&template)))
        defer { try? FileManager.default.removeItem(atPath: directory) }
        chmod(directory, 0o755)
        let toastctl = DaemonFixture.binaryDirectory.appending(path: "toastctl").path
        // The laptop: toastd of the user, in a runtime directory of theirs.
        let runtime = directory + "/runtime"
        let remote = directory + "/remote"
        for path in [runtime, remote] {
            mkdir(path, 0o700)
            chown(path, user.uid, user.gid)
        }
        chmod(remote, 0o755)  // others may look in: the socket's own mode must keep them out
        let toastd = try DaemonFixture.spawn(
            Self.asUser([DaemonFixture.binaryDirectory.appending(path: "toastd").path, "--socket", runtime + "/toastd.sock", "--ephemeral"])[0],
            Array(Self.asUser([DaemonFixture.binaryDirectory.appending(path: "toastd").path, "--socket", runtime + "/toastd.sock", "--ephemeral"]).dropFirst())
        )
        defer {
            kill(toastd, SIGTERM)
            DaemonFixture.wait(toastd)
        }
        SocketFileProbe.waitUntilAccepting(runtime + "/toastd.sock")
        // The server: sshd on 127.0.0.1 with a host key and the user's key made here.
        for key in ["host", "user"] {
            #expect(try DaemonFixture.run("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", "\(directory)/\(key)_key"]).status == 0)
        }
        chown(directory + "/user_key", user.uid, user.gid)
        try FileManager.default.copyItem(atPath: directory + "/user_key.pub", toPath: directory + "/authorized_keys")
        mkdir("/run/sshd", 0o755)
        let port = 20_000 + Int(getpid()) % 20_000
        try """
            ListenAddress 127.0.0.1
            Port \(port)
            HostKey \(directory)/host_key
            PidFile \(directory)/sshd.pid
            AuthorizedKeysFile \(directory)/authorized_keys
            AllowUsers \(user.name)
            StrictModes no
            UsePAM yes
            PasswordAuthentication no
            KbdInteractiveAuthentication no
            AllowStreamLocalForwarding yes
            StreamLocalBindUnlink yes
            StreamLocalBindMask 0177
            """.write(toFile: directory + "/sshd_config", atomically: true, encoding: .utf8)
        let sshd = try DaemonFixture.spawn("/usr/sbin/sshd", ["-D", "-e", "-f", directory + "/sshd_config"], stderr: directory + "/sshd.log")
        defer {
            kill(sshd, SIGTERM)
            DaemonFixture.wait(sshd)
        }
        // Until sshd accepts (a `while`: each try spawns a shell).
        var tries = 0
        while try DaemonFixture.run("/bin/sh", ["-c", "exec 3<>/dev/tcp/127.0.0.1/\(port)"]).status != 0, tries < 1_000 {
            tries += 1
            usleep(10_000)
        }
        // From the laptop: ssh -R, and on the server toastctl add through the forwarded socket, which then stays a few seconds.
        let forwarded = remote + "/toastd.sock"
        let command = "TOASTD_SOCKET=\(forwarded) \(toastctl) add 'Build finished on the server' --source build@server --duration indefinite; stat -c %a \(forwarded); sleep 4"
        let ssh = Self.asUser([
            "/usr/bin/ssh", "-i", directory + "/user_key", "-p", "\(port)", "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=no",
            "-o", "UserKnownHostsFile=/dev/null", "-o", "ExitOnForwardFailure=yes", "-o", "LogLevel=ERROR",
            "-R", "\(forwarded):\(runtime)/toastd.sock", "\(user.name)@127.0.0.1", command,
        ])
        let session = try DaemonFixture.spawn(ssh[0], Array(ssh.dropFirst()), stdout: directory + "/ssh.out", stderr: directory + "/ssh.err")
        var output = ""
        for _ in 0..<500 where !output.contains("\n600") {
            usleep(10_000)
            output = "\n" + ((try? String(contentsOfFile: directory + "/ssh.out", encoding: .utf8)) ?? "")
        }
        let sshLog = ((try? String(contentsOfFile: directory + "/ssh.err", encoding: .utf8)) ?? "") + ((try? String(contentsOfFile: directory + "/sshd.log", encoding: .utf8)) ?? "")
        // (UsePAM: the test user may have a locked password, which sshd refuses without PAM even for a key.)
        #expect(output.contains("\n600"), "the remote socket is the user's alone (mode 600): \(output) \(sshLog)")
        // Another uid on the server cannot reach it.
        let stranger = try DaemonFixture.run(
            "/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/env", "-i", "TOASTD_SOCKET=\(forwarded)", toastctl, "add", "intruder"])
        #expect(stranger.status == 3, "\(stranger.stdout) \(stranger.stderr)")
        kill(session, SIGTERM)
        DaemonFixture.wait(session)
        // The laptop's toastd has the toast, with the server's source.
        let listed = try DaemonFixture.run(Self.asUser([toastctl, "list", "--json"], environment: ["TOASTD_SOCKET": runtime + "/toastd.sock"])[0],
                                            Array(Self.asUser([toastctl, "list", "--json"], environment: ["TOASTD_SOCKET": runtime + "/toastd.sock"]).dropFirst()))
        #expect(listed.stdout.contains("Build finished on the server") && listed.stdout.contains("build@server"), "\(listed.stdout) \(listed.stderr) \(sshLog)")
        #expect(!listed.stdout.contains("intruder"))
    }
}
