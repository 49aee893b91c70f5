import Glibc
import SystemKit

/// A listening TCP socket on a loopback address, bound by hand so linkrouter
/// decides every option (threat model L4): the exact loopback address, never
/// `SO_REUSEPORT`, IPv6 only on `::1`, and a taken port is an error, never
/// assumed to be ours.
///
/// `SO_REUSEADDR` is set, against the letter of L4, for its one effect on
/// Linux: a port whose last connections are in TIME_WAIT (the listener closes
/// first, after its page) can be bound again at once, so a provider that
/// registered one fixed port can be signed in to twice within a minute. It
/// never lets a socket take a port another socket listens on (`bind` still
/// fails with EADDRINUSE), which is what L4 guards against (docs/security.md).
enum LoopbackSocket {
    /// One bound, listening socket.
    struct Bound {
        let address: String
        let fd: Int32
        let port: Int
    }

    /// Binds every address on one port: `port`, or with 0 the free port the
    /// first address gets (tried again a few times if another address has it
    /// taken). An address this machine lacks (no IPv6) is left out, unless
    /// it is the only one.
    static func bind(addresses: [String], port: Int) throws(ListenerError) -> [Bound] {
        var lastError: ListenerError?
        for _ in 0..<8 {
            var bound: [Bound] = []
            do {
                for address in addresses {
                    do {
                        let (fd, p) = try bind(address: address, port: bound.first?.port ?? port)
                        bound.append(Bound(address: address, fd: fd, port: p))
                    } catch let e where e.unavailableAddress && address != addresses[0] {
                        continue
                    }
                }
                return bound
            } catch {
                for b in bound { close(b.fd) }
                lastError = error
                // Only a port the kernel chose for the first address is worth another try.
                guard port == 0, error.portTaken, !bound.isEmpty else { throw error }
            }
        }
        throw lastError ?? ListenerError("cannot listen on \(addresses.joined(separator: " and "))")
    }

    static func bind(address: String, port: Int) throws(ListenerError) -> (fd: Int32, port: Int) {
        let v6 = address == "::1"
        guard v6 || address == "127.0.0.1" else {
            throw ListenerError("refusing to listen on \(address): only 127.0.0.1 and ::1")
        }
        let fd = socket(
            v6 ? AF_INET6 : AF_INET,
            Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else {
            let e = SystemError("socket")
            throw ListenerError(
                "cannot create a socket for \(address): \(e)", unavailableAddress: e.code == EAFNOSUPPORT)
        }
        var ok = false
        defer { if !ok { close(fd) } }
        var reuse: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        let rc: Int32
        if v6 {
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, socklen_t(MemoryLayout<Int32>.size))
            var sa = sockaddr_in6()
            sa.sin6_family = sa_family_t(AF_INET6)
            sa.sin6_port = in_port_t(UInt16(port).bigEndian)
            sa.sin6_addr = in6addr_loopback
            rc = withUnsafePointer(to: &sa) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        } else {
            var sa = sockaddr_in()
            sa.sin_family = sa_family_t(AF_INET)
            sa.sin_port = in_port_t(UInt16(port).bigEndian)
            sa.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
            rc = withUnsafePointer(to: &sa) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        guard rc == 0 else {
            let e = SystemError("bind")
            if e.code == EADDRINUSE {
                throw ListenerError(
                    "port \(port) on \(address) is already in use by another program; use a redirect_uri without a port so the daemon picks a free one",
                    portTaken: true)
            }
            if e.code == EADDRNOTAVAIL || e.code == EAFNOSUPPORT {
                throw ListenerError(
                    "cannot listen on \(address): this machine has no such loopback address (\(e.reason))",
                    unavailableAddress: true)
            }
            throw ListenerError("cannot listen on \(address):\(port): \(e.reason)")
        }
        guard listen(fd, 16) == 0 else { throw ListenerError("cannot listen: \(SystemError("listen"))") }
        var bound = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &bound) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        let boundPort: UInt16 = withUnsafePointer(to: &bound) { p in
            v6
                ? p.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
                : p.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
        }
        ok = true
        return (fd, Int(boundPort))
    }
}
