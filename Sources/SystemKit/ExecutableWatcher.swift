import Glibc

/// Tells when the running program's executable is replaced on disk: a
/// package upgrade renames the new file over the old path (dpkg does; `install`
/// and linkers unlink it and write a new one), so the path then names another
/// inode than the one this process runs. Watches the executable's directory (`DirectoryWatcher`).
public final class ExecutableWatcher {
    /// The path the program was started from.
    public let path: String
    private let running: (device: UInt64, inode: UInt64)
    private let watcher: DirectoryWatcher
    private var reported = false

    public init() throws(SystemError) {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { throw SystemError("readlink", path: "/proc/self/exe") }
        let exe = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard !exe.hasSuffix(" (deleted)"), let slash = exe.lastIndex(of: "/") else {
            throw SystemError("the executable \(exe) is already gone", code: ENOENT)
        }
        // Opened, not stat'ed: under valgrind only an open of /proc/self/exe
        // is the program's file (a stat would be valgrind's own, taken for a replacement).
        let exeFD = open("/proc/self/exe", O_RDONLY | O_CLOEXEC)
        guard exeFD >= 0 else { throw SystemError("open", path: "/proc/self/exe") }
        defer { close(exeFD) }
        var st = stat()
        guard fstat(exeFD, &st) == 0 else { throw SystemError("fstat", path: "/proc/self/exe") }
        path = exe
        running = (UInt64(st.st_dev), UInt64(st.st_ino))
        watcher = try DirectoryWatcher(slash == exe.startIndex ? "/" : String(exe[..<slash]))
    }

    /// Calls `handler` once, when `path` has become another executable file
    /// (looked at once more right away: a replacement between the exec and the watch has no event).
    public func attach(to loop: EventLoop, _ handler: @escaping () -> Void) {
        let check: () -> Void = { [weak self] in
            guard let self, !reported, replaced else { return }
            reported = true
            handler()
        }
        watcher.attach(to: loop, check)
        _ = loop.schedule(afterMilliseconds: 0, check)
    }

    /// Whether `path` is now a complete executable that is not the one running.
    public var replaced: Bool {
        var st = stat()
        guard stat(path, &st) == 0, st.st_mode & S_IFMT == S_IFREG, access(path, X_OK) == 0 else { return false }
        return (UInt64(st.st_dev), UInt64(st.st_ino)) != running
    }
}
