internal import CLinux
import Glibc

/// Tells when files appear in a directory (`inotify(7)`: a rename into it or
/// a file closed after writing), as a descriptor in the loop.
public final class DirectoryWatcher {
    private let fd: Int32

    public init(_ directory: String) throws(SystemError) {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { throw SystemError("inotify_init1") }
        guard inotify_add_watch(fd, directory, UInt32(IN_MOVED_TO | IN_CLOSE_WRITE | IN_ONLYDIR)) >= 0 else {
            let e = SystemError("inotify_add_watch", path: directory)
            close(fd)
            throw e
        }
        self.fd = fd
    }

    /// Calls `handler` (once per batch of events) whenever something arrives.
    public func attach(to loop: EventLoop, _ handler: @escaping () -> Void) {
        loop.watch(fd, for: .readable) { [fd] _ in
            var buffer = [UInt8](repeating: 0, count: 8192)
            while buffer.withUnsafeMutableBytes({ read(fd, $0.baseAddress, $0.count) }) > 0 {}
            handler()
        }
    }

    deinit { close(fd) }
}
