import Glibc
import SystemKit

/// Fixtures/http_test_server.py on 127.0.0.1: https with a certificate from a
/// CA made for this server alone, and plain http. The listening sockets are
/// bound here and inherited by the server, so it needs no readiness handshake.
final class TestHTTPServer {
    let httpsPort: Int
    let httpPort: Int
    /// The test CA: the only certificate that makes the https side trusted.
    let caFile: String
    private let pid: Int32
    private let directory: TemporaryDirectory

    init() throws {
        directory = TemporaryDirectory("linkrouter-http")
        let dir = directory.path
        caFile = dir + "/ca.pem"
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1"]
        try Self.openssl(
            ["req", "-x509"] + ec + ["-subj", "/CN=linkrouter test CA", "-keyout", dir + "/ca.key", "-out", caFile])
        try Self.openssl(
            ["req", "-x509", "-CA", caFile, "-CAkey", dir + "/ca.key"] + ec + [
                "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-addext",
                "basicConstraints=critical,CA:FALSE",
                "-keyout", dir + "/key.pem", "-out", dir + "/cert.pem",
            ])
        let https = try Self.listen()
        let http = try Self.listen()
        // Not close-on-exec so the server inherits them; a child another test spawns in
        // this window inherits them too, harmlessly: it never accepts on them.
        defer {
            close(https.fd)
            close(http.fd)
        }
        httpsPort = https.port
        httpPort = http.port
        let script = FileSystem.directoryName(#filePath) + "/Fixtures/http_test_server.py"
        pid = try Subprocess.spawn(
            [
                "/usr/bin/python3", script, "--https-fd", String(https.fd), "--http-fd", String(http.fd),
                "--cert", dir + "/cert.pem", "--key", dir + "/key.pem",
            ], stderr: .file(dir + "/server.log"))
    }

    deinit {
        Subprocess.stop(pid, name: "the test HTTP server")
    }

    var https: String { "https://127.0.0.1:\(httpsPort)" }
    var http: String { "http://127.0.0.1:\(httpPort)" }

    private static func openssl(_ arguments: [String]) throws {
        let out = try Subprocess.run(["openssl"] + arguments)
        guard out.status == 0 else { throw SystemError("openssl \(arguments[0]): \(out.errorText)", code: EINVAL) }
    }

    /// A listening TCP socket on 127.0.0.1 and a free port.
    private static func listen() throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw SystemError("socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && Glibc.listen(fd, 64) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard ok else {
            let error = SystemError("bind 127.0.0.1")
            close(fd)
            throw error
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }
}
