import Glibc
import SystemKit
import Testing

@testable import Loopback

/// Who is at the other end of a loopback connection, from the kernel's socket table.
@Suite("Loopback: the peer's uid")
struct LoopbackPeerTests {
    static let header =
        "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"

    static func line(_ local: String, _ remote: String, state: String = "01", uid: Int) -> String {
        "   0: \(local) \(remote) \(state) 00000000:00000000 00:00000000 00000000 \(uid)        0 1 1 0 10 0 0 10 0\n"
    }

    @Test(
        "the client socket's uid is the established line with the client's address and port and the listener's: not the daemon's own accepted socket, not another address on the same port, not a closed line; none or two is no answer"
    )
    func fromTheTable() throws {
        let dir = "/tmp/lr-peer-\(getpid())"
        try FileSystem.makeDirectories(dir, permissions: 0o700)
        defer { _ = try? Subprocess.run(["rm", "-rf", dir]) }
        // The listener on 127.0.0.1:40000 (0x9C40); the browser's connection from 127.0.0.1:50000 (0xC350), of uid
        // 1000; the daemon's accepted end of it (uid 0); another user's connection from 127.0.0.2:40000, and a
        // TIME_WAIT line (06).
        let lines = [
            Self.line("0100007F:9C40", "00000000:0000", state: "0A", uid: 0),
            Self.line("0100007F:C350", "0100007F:9C40", uid: 1000),
            Self.line("0100007F:9C40", "0100007F:C350", uid: 0),
            Self.line("0200007F:9C40", "0100007F:9C40", uid: 2000),
            Self.line("0100007F:9C40", "0200007F:9C40", uid: 0),
            Self.line("0100007F:C351", "0100007F:9C40", state: "06", uid: 0),
        ]
        try FileSystem.writeAtomically(dir + "/tcp", text: Self.header + lines.joined(), permissions: 0o600)
        let server = LoopbackPeer.End(address: [127, 0, 0, 1], port: 40000)
        func uid(_ address: [UInt8], _ port: Int, in d: String = dir) -> UInt32? {
            LoopbackPeer.uid(client: .init(address: address, port: port), server: server, procNet: d)
        }
        #expect(uid([127, 0, 0, 1], 50000) == 1000)
        #expect(uid([127, 0, 0, 2], 40000) == 2000, "another address on the listener's port is its own line")
        #expect(uid([127, 0, 0, 1], 50001) == nil, "not established")
        #expect(uid([127, 0, 0, 1], 50002) == nil, "not listed")
        #expect(uid([127, 0, 0, 1], 50000, in: dir + "/none") == nil)
        // Two lines for one connection: no answer.
        try FileSystem.writeAtomically(
            dir + "/tcp", text: Self.header + lines[1] + Self.line("0100007F:C350", "0100007F:9C40", uid: 0),
            permissions: 0o600)
        #expect(uid([127, 0, 0, 1], 50000) == nil)
        // IPv6: ::1 is four words, each in the kernel's byte order.
        let one6 = [UInt8](repeating: 0, count: 15) + [1]
        try FileSystem.writeAtomically(
            dir + "/tcp6",
            text: Self.header
                + Self.line(
                    "00000000000000000000000001000000:C350", "00000000000000000000000001000000:9C40", uid: 42),
            permissions: 0o600)
        #expect(
            LoopbackPeer.uid(
                client: .init(address: one6, port: 50000), server: .init(address: one6, port: 40000), procNet: dir)
                == 42)
    }
}
