internal import CLinux
import Glibc

/// One accepted connection of a `UnixListener`: its peer as the kernel saw it
/// when it connected (`SO_PEERCRED`), a pidfd of that process taken at once where
/// the kernel has them, and non-blocking reads and writes.
public final class UnixConnection {
    public let fd: Int32
    /// The connecting process, as the kernel recorded it at `connect` (not what it says of itself).
    public let peer: PeerCredentials?
    /// A pidfd of `peer.pid` (Linux 5.3), taken as the connection is accepted: `peerExited` asks it.
    private let pidfd: Int32
    /// `CLOCK_BOOTTIME` milliseconds at accept: the process had started by then.
    public let acceptedAt: Int64
    public private(set) var isClosed = false

    public struct PeerCredentials: Sendable, Equatable {
        public let pid: UInt32
        public let uid: UInt32
        public let gid: UInt32
    }

    init(fd: Int32) {
        self.fd = fd
        acceptedAt = Clock.monotonicMilliseconds()
        var pid: Int32 = 0
        var uid: UInt32 = 0
        var gid: UInt32 = 0
        if lr_peer_credentials(fd, &pid, &uid, &gid) == 0, pid > 0 {
            peer = PeerCredentials(pid: UInt32(pid), uid: uid, gid: gid)
            pidfd = lr_pidfd_open(pid)
        } else {
            peer = nil
            pidfd = -1
        }
    }

    deinit { close() }

    /// Whether the peer process is known to have exited since it connected (its pidfd is readable then). False
    /// when the kernel gave no pidfd: the caller's other checks (its start time, `/proc`) still apply.
    public var peerExited: Bool {
        guard pidfd >= 0 else { return false }
        var p = pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)
        return poll(&p, 1, 0) == 1
    }

    public enum Read: Equatable {
        case bytes([UInt8])
        /// Nothing to read now.
        case wouldBlock
        /// The peer closed its end.
        case closed
    }

    /// Up to `max` bytes that are there now.
    public func read(max: Int) throws(SystemError) -> Read {
        var buffer = [UInt8](repeating: 0, count: max)
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, max, 0) }
        if n > 0 { return .bytes(Array(buffer.prefix(n))) }
        if n == 0 { return .closed }
        switch errno {
        case EAGAIN, EWOULDBLOCK, EINTR: return .wouldBlock
        case ECONNRESET: return .closed
        default: throw SystemError("recv")
        }
    }

    /// Writes what the socket takes now; how many bytes it took (0: none, try when writable).
    public func write(_ bytes: ArraySlice<UInt8>) throws(SystemError) -> Int {
        let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if n >= 0 { return n }
        switch errno {
        case EAGAIN, EWOULDBLOCK, EINTR: return 0
        default: throw SystemError("send")
        }
    }

    /// Says "no more" to the peer (it reads end of file after what was written) while its bytes are still read.
    public func shutdownWrites() { _ = shutdown(fd, Int32(SHUT_WR)) }

    /// Reads and drops whatever is there now; whether the peer has closed its end.
    public func discardWaiting() -> Bool {
        while true {
            switch try? read(max: 65536) {
            case .bytes?: continue
            case .wouldBlock?: return false
            case .closed?, nil: return true
            }
        }
    }

    public func close() {
        guard !isClosed else { return }
        isClosed = true
        Glibc.close(fd)
        if pidfd >= 0 { Glibc.close(pidfd) }
    }
}
