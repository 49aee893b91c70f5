import Glibc
import SystemKit

/// A plain TCP client for the tests that must misbehave below HTTP: half
/// requests, pipelining, holding a connection open.
final class RawSocket {
    let fd: Int32

    init(port: Int, ipv6: Bool = false) throws {
        fd = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        let rc: Int32
        if ipv6 {
            var sa = sockaddr_in6()
            sa.sin6_family = sa_family_t(AF_INET6)
            sa.sin6_port = in_port_t(UInt16(port).bigEndian)
            sa.sin6_addr = in6addr_loopback
            rc = withUnsafePointer(to: &sa) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        } else {
            var sa = sockaddr_in()
            sa.sin_family = sa_family_t(AF_INET)
            sa.sin_port = in_port_t(UInt16(port).bigEndian)
            sa.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
            rc = withUnsafePointer(to: &sa) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        guard rc == 0 else {
            let e = SystemError("connect")
            close(fd)
            throw e
        }
    }

    func send(_ text: String) {
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Everything until the peer closes or `timeoutMilliseconds` pass.
    func readAll(timeoutMilliseconds: Int = 5000) -> String {
        var out: [UInt8] = []
        let deadline = Clock.monotonicMilliseconds() + Int64(timeoutMilliseconds)
        var buffer = [UInt8](repeating: 0, count: 65536)
        while Clock.monotonicMilliseconds() < deadline {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 100) > 0 else { continue }
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            out.append(contentsOf: buffer[0..<n])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// True if the peer has closed the connection (read returns 0 within the time).
    func isClosedByPeer(timeoutMilliseconds: Int = 1000) -> Bool {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&p, 1, Int32(timeoutMilliseconds)) > 0 else { return false }
        var b: UInt8 = 0
        return recv(fd, &b, 1, Int32(MSG_PEEK)) <= 0
    }

    /// Whether anything listens on `port` (a refused connect says no).
    static func isListening(port: Int, ipv6: Bool = false) -> Bool { (try? RawSocket(port: port, ipv6: ipv6)) != nil }

    deinit { close(fd) }
}
