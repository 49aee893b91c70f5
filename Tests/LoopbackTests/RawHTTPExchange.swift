import Glibc
import LoopTesting
import SystemKit

/// One HTTP request over a plain TCP socket, written as given (so a test can
/// send any method, target or `Host`), and the response read to the end. The
/// listener runs on the same loop as the test, so the reading is the loop's
/// too: `connect` and the small write complete in the kernel (the listening
/// socket's backlog takes the connection before the listener accepts it),
/// and the answer is read as the loop turns.
struct RawHTTPExchange {
    let status: Int
    /// As sent, in order.
    let headers: [(name: String, value: String)]
    let body: String

    func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name.lowercased() }?.value }

    /// Connects to `address` (`127.0.0.1` or `::1`) on `port`, sends `request`, and reads until the server closes.
    init(_ request: String, to address: String = "127.0.0.1", port: Int, loop: EventLoop) throws {
        let fd = try Self.connect(address, port: port)
        defer { close(fd) }
        var bytes = Array(request.utf8)
        let sent = bytes.withUnsafeMutableBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == bytes.count else { throw SystemError("send") }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        var received: [UInt8] = []
        var closed = false
        let source = loop.watch(fd, for: .readable) { _ in
            var chunk = [UInt8](repeating: 0, count: 16 * 1024)
            while true {
                let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if n > 0 {
                    received += chunk[0..<n]
                } else {
                    // 0: the server closed; an error other than "no more yet" ends the exchange too.
                    if n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK) { closed = true }
                    return
                }
            }
        }
        defer { loop.remove(source) }
        guard loop.turn(until: { closed }) else { throw SystemError("no complete answer within 10 s", code: ETIMEDOUT) }
        let text = String(decoding: received, as: UTF8.self)
        guard let end = text.firstRange(of: "\r\n\r\n") else {
            throw SystemError("not an HTTP response: \(text.prefix(200))", code: EPROTO)
        }
        let lines = text[..<end.lowerBound].split(separator: "\r\n")
        guard let statusLine = lines.first, statusLine.hasPrefix("HTTP/1."),
            let code = statusLine.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { throw SystemError("not an HTTP status line: \(lines.first ?? "")", code: EPROTO) }
        status = code
        headers = lines.dropFirst().compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), String(line[line.index(after: colon)...].drop { $0 == " " }))
        }
        body = String(text[end.upperBound...])
    }

    /// A blocking connect; throws the error (ECONNREFUSED when nothing listens).
    static func connect(_ address: String, port: Int) throws -> Int32 {
        let v6 = address == "::1"
        let fd = socket(v6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SystemError("socket") }
        let rc: Int32
        if v6 {
            var sa = sockaddr_in6()
            sa.sin6_family = sa_family_t(AF_INET6)
            sa.sin6_port = in_port_t(UInt16(port).bigEndian)
            sa.sin6_addr = in6addr_loopback
            rc = withUnsafePointer(to: &sa) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        } else {
            var sa = sockaddr_in()
            sa.sin_family = sa_family_t(AF_INET)
            sa.sin_port = in_port_t(UInt16(port).bigEndian)
            sa.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
            rc = withUnsafePointer(to: &sa) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        guard rc == 0 else {
            let error = SystemError("connect to \(address):\(port)")
            close(fd)
            throw error
        }
        return fd
    }
}
