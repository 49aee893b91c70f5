internal import CLinux
import Glibc

/// A listening UNIX stream socket at a path of the daemon's own (the oidc-agent
/// socket): non-blocking, close-on-exec, the file `0600`, so only this user's
/// processes can connect, and each connection says who it is (`UnixConnection.peer`).
public final class UnixListener {
    public let fd: Int32
    public let path: String
    /// Passed by systemd (`adopting`): its file is the socket unit's, left in place at `close`.
    private let adopted: Bool

    /// Binds `path` (a socket left there by an earlier daemon is replaced; any other file is not) and listens.
    /// `backlog`: connections the kernel queues before one is taken (capped at `net.core.somaxconn`, 4096); a
    /// client's blocking `connect` waits for room beyond it.
    public init(path: String, backlog: Int32 = 4096) throws(SystemError) {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let room = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < room else { throw SystemError("bind", path: path, code: ENAMETOOLONG) }
        if let s = FileSystem.status(path) {
            guard s.kind == .socket else { throw SystemError("bind (not a socket there)", path: path, code: EEXIST) }
            try FileSystem.remove(path)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
        }
        let fd = socket(
            AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SystemError("socket") }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + 1)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else {
            let e = SystemError("bind", path: path)
            Glibc.close(fd)
            throw e
        }
        guard chmod(path, 0o600) == 0, listen(fd, backlog) == 0 else {
            let e = SystemError("listen", path: path)
            Glibc.close(fd)
            unlink(path)
            throw e
        }
        self.fd = fd
        self.path = path
        adopted = false
    }

    /// A listening socket systemd made and passed (`SocketActivation`): it must be a UNIX stream socket that
    /// listens; it is made non-blocking.
    public init(adopting fd: Int32, path: String) throws(SystemError) {
        var listening: Int32 = 0
        var type: Int32 = 0
        var family = sockaddr_un()
        var size = socklen_t(MemoryLayout<Int32>.size)
        var familySize = socklen_t(MemoryLayout<sockaddr_un>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &size) == 0, listening == 1,
            getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &size) == 0, type == Int32(SOCK_STREAM.rawValue),
            withUnsafeMutablePointer(
                to: &family,
                {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &familySize) }
                }) == 0, family.sun_family == sa_family_t(AF_UNIX)
        else { throw SystemError("adopt (not a listening UNIX stream socket)", path: path, code: ENOTSOCK) }
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0, fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0 else { throw SystemError("fcntl", path: path) }
        self.fd = fd
        self.path = path
        adopted = true
    }

    /// The next waiting connection, or nil when none is (or it vanished before it was taken).
    public func accept() throws(SystemError) -> UnixConnection? {
        let c = lr_accept_nonblocking(fd)
        guard c >= 0 else {
            switch errno {
            case EAGAIN, EWOULDBLOCK, ECONNABORTED, EINTR: return nil
            default: throw SystemError("accept", path: path)
            }
        }
        return UnixConnection(fd: c)
    }

    /// Stops listening and removes the socket's file, unless systemd made it (its socket unit keeps it).
    public func close() {
        Glibc.close(fd)
        if !adopted { unlink(path) }
    }
}
