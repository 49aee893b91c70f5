import Glibc
import SystemKit

/// A plain-HTTP server on 127.0.0.1 (a free port) whose answers the test
/// scripts request by request, and which keeps every request it got. It runs
/// on the test's own `EventLoop`, the one `HTTPClient` runs on, so one thread
/// does everything: the test reads `requests` without a lock, and nothing
/// happens between two turns of the loop. (Tests/WrapperTests' TestHTTPServer
/// is a Python process with fixed routes: these tests need answers that
/// change from one request to the next, and to read each request back.)
///
/// One request per connection: each answer carries `Connection: close`.
final class ScriptedHTTPServer {
    struct Request {
        let method: String
        let target: String
        /// In the order they came, names as sent.
        let headers: [(name: String, value: String)]
        let body: [UInt8]

        func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }

        /// The target without its query.
        var path: String { String(target.prefix { $0 != "?" }) }
    }

    struct Response {
        var status: Int
        var headers: [(String, String)] = []
        var body: String

        /// A JSON body with its media type.
        static func json(_ status: Int, _ body: String, headers: [(String, String)] = []) -> Response {
            Response(status: status, headers: [("Content-Type", "application/json")] + headers, body: body)
        }

        static let notFound = Response(status: 404, headers: [("Content-Type", "text/plain")], body: "not found")
    }

    let port: Int
    var base: String { "http://127.0.0.1:\(port)" }
    /// Every complete request, in the order they came.
    private(set) var requests: [Request] = []
    /// What to answer; it sees the requests before this one in `requests`.
    var handler: (Request) -> Response

    private let loop: EventLoop
    private let listener: Int32
    private var source: EventLoop.SourceID?
    private var connections: [Int32: (source: EventLoop.SourceID, buffer: [UInt8])] = [:]

    init(loop: EventLoop, handler: @escaping (Request) -> Response = { _ in .notFound }) throws {
        self.loop = loop
        self.handler = handler
        let fd = socket(
            AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw SystemError("socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard ok else {
            let error = SystemError("bind 127.0.0.1")
            close(fd)
            throw error
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        source = loop.watch(fd, for: .readable) { [weak self] _ in self?.accept() }
    }

    deinit {
        if let source { loop.remove(source) }
        close(listener)
        for (fd, connection) in connections {
            loop.remove(connection.source)
            close(fd)
        }
    }

    /// The requests whose path is `path`.
    func requests(to path: String) -> [Request] { requests.filter { $0.path == path } }

    private func accept() {
        while true {
            let fd = Glibc.accept(listener, nil, nil)
            guard fd >= 0 else { return }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            let source = loop.watch(fd, for: .readable) { [weak self] _ in self?.read(fd) }
            connections[fd] = (source, [])
        }
    }

    private func read(_ fd: Int32) {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                connections[fd]?.buffer += chunk[0..<n]
                continue
            }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { break }
            // The client went away (or failed) before a whole request: nothing to answer.
            return finish(fd)
        }
        guard let buffer = connections[fd]?.buffer, let request = Self.parse(buffer) else { return }
        requests.append(request)
        respond(handler(request), on: fd)
        finish(fd)
    }

    private func finish(_ fd: Int32) {
        if let connection = connections.removeValue(forKey: fd) { loop.remove(connection.source) }
        close(fd)
    }

    /// A whole request (head and a `Content-Length` body), or nil while more is to come.
    static func parse(_ bytes: [UInt8]) -> Request? {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        guard let end = bytes.indices.first(where: { bytes[$0...].starts(with: separator) }) else { return nil }
        let lines = String(decoding: bytes[..<end], as: UTF8.self).split(separator: "\r\n").map(String.init)
        guard let requestLine = lines.first?.split(separator: " "), requestLine.count == 3 else { return nil }
        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append((String(line[..<colon]), String(line[line.index(after: colon)...].drop { $0 == " " })))
        }
        let length = headers.first { $0.name.lowercased() == "content-length" }.flatMap { Int($0.value) } ?? 0
        let bodyStart = end + separator.count
        guard bytes.count >= bodyStart + length else { return nil }
        return Request(
            method: String(requestLine[0]), target: String(requestLine[1]), headers: headers,
            body: Array(bytes[bodyStart..<bodyStart + length]))
    }

    private func respond(_ response: Response, on fd: Int32) {
        var head = "HTTP/1.1 \(response.status) Scripted\r\n"
        for (name, value) in response.headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(response.body.utf8.count)\r\nConnection: close\r\n\r\n"
        var bytes = Array((head + response.body).utf8)
        var sent = 0
        // A few KiB at most: the socket's buffer takes it, waiting for room only if it must.
        while sent < bytes.count {
            let n = bytes.withUnsafeMutableBytes {
                send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL))
            }
            if n > 0 {
                sent += n
            } else if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&p, 1, 1000)
            } else {
                return
            }
        }
    }
}
