import Glibc
import SystemKit
import Testing

@testable import Loopback

/// Who is at the other end of a loopback connection, from the kernel's socket table.
@Suite("Loopback: the peer's uid")
struct LoopbackPeerTests {
    @Test(
        "the client socket's uid is read from /proc/net/tcp or tcp6 by its ports; a connection the table does not list has none"
    )
    func fromTheTable() throws {
        let dir = "/tmp/lr-peer-\(getpid())"
        try FileSystem.makeDirectories(dir, permissions: 0o700)
        defer { _ = try? Subprocess.run(["rm", "-rf", dir]) }
        let header =
            "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
        // The listener's socket (port 0x9C40 = 40000), a client on 0xC350 = 50000 owned by 1000, another by 0.
        try FileSystem.writeAtomically(
            dir + "/tcp",
            text: header
                + "   0: 0100007F:9C40 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1 1 0 10 0 0 10 0\n"
                + "   1: 0100007F:C350 0100007F:9C40 01 00000000:00000000 00:00000000 00000000  1000        0 2 1 0 10 0 0 10 0\n"
                + "   2: 0100007F:9C40 0100007F:C350 01 00000000:00000000 00:00000000 00000000     0        0 3 1 0 10 0 0 10 0\n",
            permissions: 0o600)
        try FileSystem.writeAtomically(
            dir + "/tcp6",
            text: header
                + "   0: 00000000000000000000000001000000:C351 00000000000000000000000001000000:9C40 01 00000000:00000000 00:00000000 00000000    42        0 4 1 0 10 0 0 10 0\n",
            permissions: 0o600)
        #expect(LoopbackPeer.uid(clientPort: 50000, serverPort: 40000, procNet: dir) == 1000)
        #expect(LoopbackPeer.uid(clientPort: 50001, serverPort: 40000, procNet: dir) == 42)
        #expect(LoopbackPeer.uid(clientPort: 50002, serverPort: 40000, procNet: dir) == nil)
        #expect(LoopbackPeer.uid(clientPort: 50000, serverPort: 40000, procNet: dir + "/none") == nil)
    }
}
