import SystemKit

/// Who is at the other end of a loopback connection: the kernel's socket
/// table (`/proc/net/tcp`, `/proc/net/tcp6`) lists each TCP socket with its
/// owner's uid, and the client's socket is the established one whose local
/// address and port are the client's and whose remote address and port are
/// the listener's. Used where the page itself is the secret (a sign-out page
/// that names the ID token): only the daemon's own user may have it. Fails
/// closed: no line, or more than one, is no answer.
public enum LoopbackPeer {
    /// One end of a connection: its address (4 or 16 bytes, network order) and port.
    public struct End: Sendable, Equatable {
        public let address: [UInt8]
        public let port: Int

        public init(address: [UInt8], port: Int) {
            self.address = address
            self.port = port
        }

        /// The end as the table writes it: each 32-bit word of the address in the kernel's byte order (little
        /// endian here), then the port, in hex.
        var field: String {
            var hex = ""
            for word in stride(from: 0, to: address.count, by: 4) {
                for b in address[word..<min(word + 4, address.count)].reversed() { hex += byte(b) }
            }
            let p = String(port, radix: 16, uppercase: true)
            return hex + ":" + String(repeating: "0", count: max(0, 4 - p.count)) + p
        }

        private func byte(_ b: UInt8) -> String {
            let s = String(b, radix: 16, uppercase: true)
            return s.count == 1 ? "0" + s : s
        }
    }

    /// The uid owning the client's socket of the established connection `client` → `server`, or nil when the table
    /// does not list exactly one.
    public static func uid(client: End, server: End, procNet: String = "/proc/net") -> UInt32? {
        let table = client.address.count == 4 ? "tcp" : "tcp6"
        guard let text = try? FileSystem.readText(procNet + "/" + table, maxBytes: 16 << 20) else { return nil }
        let (local, remote) = (client.field, server.field)
        var found: [UInt32] = []
        for line in text.split(separator: "\n").dropFirst() {
            // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
            let f = line.split(separator: " ", omittingEmptySubsequences: true)
            guard f.count > 7, f[1] == local, f[2] == remote, f[3] == "01", let uid = UInt32(f[7]) else { continue }
            found.append(uid)
        }
        return found.count == 1 ? found[0] : nil
    }
}
