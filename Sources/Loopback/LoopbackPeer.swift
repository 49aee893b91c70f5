import SystemKit

/// Who is at the other end of a loopback connection: the kernel's socket
/// table (`/proc/net/tcp`, `/proc/net/tcp6`) lists each TCP socket with its
/// owner's uid, and the client's socket is the one whose local port is the
/// client's port and whose remote port is the listener's. Used where the page
/// itself is the secret (a sign-out page that names the ID token): only the
/// daemon's own user may have it.
public enum LoopbackPeer {
    /// The uid owning the client socket of the connection from `clientPort` to `serverPort`, or nil when the table
    /// does not list it (then the answer is no).
    public static func uid(clientPort: Int, serverPort: Int, procNet: String = "/proc/net") -> UInt32? {
        for table in ["tcp", "tcp6"] {
            guard let text = try? FileSystem.readText(procNet + "/" + table, maxBytes: 16 << 20) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
                let f = line.split(separator: " ", omittingEmptySubsequences: true)
                guard f.count > 7, port(f[1]) == clientPort, port(f[2]) == serverPort else { continue }
                return UInt32(f[7])
            }
        }
        return nil
    }

    /// The port of an `ADDRESS:PORT` field (the port in hex).
    static func port(_ field: Substring) -> Int? {
        guard let colon = field.lastIndex(of: ":") else { return nil }
        return Int(field[field.index(after: colon)...], radix: 16)
    }
}
