internal import CLinux
import Glibc

/// The file operations linkrouter needs, each one system call deep, with
/// `SystemError` instead of `errno`. Nothing here follows a symlink unless asked.
public enum FileSystem {
    public static func status(_ path: String, followSymlinks: Bool = false) -> FileStatus? {
        var st = stat()
        let rc = followSymlinks ? stat(path, &st) : lstat(path, &st)
        return rc == 0 ? FileStatus(st) : nil
    }

    public static func exists(_ path: String) -> Bool { status(path, followSymlinks: true) != nil }

    public static func isDirectory(_ path: String) -> Bool { status(path, followSymlinks: true)?.kind == .directory }

    public static func isExecutable(_ path: String) -> Bool {
        guard let st = status(path, followSymlinks: true), st.kind == .regular else { return false }
        return access(path, X_OK) == 0
    }

    /// Reads a whole file, at most `maxBytes`. With `private`, the file must be
    /// a regular file (not a symlink) owned by this user with no group or other access.
    public static func read(_ path: String, maxBytes: Int = 1 << 20, requirePrivate: Bool = false) throws(SystemError)
        -> [UInt8]
    {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { throw SystemError("open", path: path) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw SystemError("fstat", path: path) }
        let info = FileStatus(st)
        guard info.kind == .regular else { throw SystemError("open", path: path, code: EINVAL) }
        if requirePrivate && (info.owner != getuid() || info.permissions & 0o077 != 0) {
            throw SystemError("refusing to read (not private to this user)", path: path, code: EPERM)
        }
        // A buffer never zero-filled, of no more than the file may hold: a caller's app is found out from five small
        // /proc files, and clearing a 64 KiB buffer for each was most of that (bench `instructions`).
        var out: [UInt8] = []
        let chunk = min(65536, maxBytes + 1)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 1)
        defer { buffer.deallocate() }
        while true {
            let n = Glibc.read(fd, buffer.baseAddress, chunk)
            if n < 0 {
                if errno == EINTR { continue }
                throw SystemError("read", path: path)
            }
            if n == 0 { break }
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            if out.count > maxBytes { throw SystemError("read", path: path, code: EFBIG) }
        }
        return out
    }

    public static func readText(_ path: String, maxBytes: Int = 1 << 20) throws(SystemError) -> String {
        String(decoding: try read(path, maxBytes: maxBytes), as: UTF8.self)
    }

    /// Writes through a temporary file in the same directory, fsyncs it,
    /// renames it over `path`, and fsyncs the directory (threat model P2):
    /// a reader sees the old file or the new one, never half of either.
    public static func writeAtomically(_ path: String, _ bytes: [UInt8], permissions: UInt32 = 0o600)
        throws(SystemError)
    {
        let dir = directoryName(path)
        var template = Array((dir + "/.tmp-linkrouter-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkostemp($0.baseAddress!, O_CLOEXEC) }
        guard fd >= 0 else { throw SystemError("create temporary file in", path: dir) }
        let tmp = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var ok = false
        defer {
            if !ok { unlink(tmp) }
        }
        guard fchmod(fd, mode_t(permissions)) == 0 else {
            close(fd)
            throw SystemError("fchmod", path: tmp)
        }
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                let e = SystemError("write", path: tmp)
                close(fd)
                throw e
            }
            offset += n
        }
        guard fsync(fd) == 0 else {
            let e = SystemError("fsync", path: tmp)
            close(fd)
            throw e
        }
        guard close(fd) == 0 else { throw SystemError("close", path: tmp) }
        guard Glibc.rename(tmp, path) == 0 else { throw SystemError("rename", path: path) }
        ok = true
        syncDirectory(dir)
    }

    public static func writeAtomically(_ path: String, text: String, permissions: UInt32 = 0o600) throws(SystemError) {
        try writeAtomically(path, Array(text.utf8), permissions: permissions)
    }

    static func syncDirectory(_ dir: String) {
        let dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dfd >= 0 {
            fsync(dfd)
            close(dfd)
        }
    }

    /// `mkdir -p` with `permissions` for each directory it creates.
    public static func makeDirectories(_ path: String, permissions: UInt32 = 0o755) throws(SystemError) {
        if isDirectory(path) { return }
        let parent = directoryName(path)
        if parent != path && !parent.isEmpty { try makeDirectories(parent, permissions: permissions) }
        if mkdir(path, mode_t(permissions)) != 0 && errno != EEXIST { throw SystemError("mkdir", path: path) }
    }

    /// A directory only this user can enter (threat model P3): created 0700
    /// if missing; refused if it is a symlink, someone else's, or open to others.
    public static func ensurePrivateDirectory(_ path: String) throws(SystemError) {
        if status(path) == nil {
            try makeDirectories(directoryName(path), permissions: 0o700)
            if mkdir(path, 0o700) != 0 && errno != EEXIST { throw SystemError("mkdir", path: path) }
        }
        guard let st = status(path) else { throw SystemError("stat", path: path) }
        guard st.kind == .directory else {
            throw SystemError("refusing to use (not a directory, or a symlink)", path: path, code: ENOTDIR)
        }
        guard st.owner == getuid() else {
            throw SystemError("refusing to use (owned by another user)", path: path, code: EPERM)
        }
        if st.permissions & 0o077 != 0 {
            throw SystemError(
                "refusing to use (mode \(String(st.permissions, radix: 8)) lets others in; want 0700)", path: path,
                code: EPERM)
        }
    }

    public static func list(_ dir: String) -> [String] {
        guard let d = opendir(dir) else { return [] }
        defer { closedir(d) }
        var names: [String] = []
        while let entry = readdir(d) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    public static func remove(_ path: String) throws(SystemError) {
        if unlink(path) != 0 && errno != ENOENT { throw SystemError("unlink", path: path) }
    }

    public static func removeDirectory(_ path: String) throws(SystemError) {
        if rmdir(path) != 0 && errno != ENOENT { throw SystemError("rmdir", path: path) }
    }

    public static func rename(_ from: String, to: String) throws(SystemError) {
        if Glibc.rename(from, to) != 0 { throw SystemError("rename", path: from) }
    }

    public static func symlink(_ target: String, at path: String) throws(SystemError) {
        if Glibc.symlink(target, path) != 0 { throw SystemError("symlink", path: path) }
    }

    public static func readLink(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4097)
        let n = readlink(path, &buffer, 4096)
        guard n > 0 else { return nil }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The canonical absolute path, symlinks resolved.
    public static func resolve(_ path: String) -> String? {
        guard let p = realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }

    /// The running program's own absolute path (for `Exec=` lines and service files).
    public static func executablePath() -> String {
        readLink("/proc/self/exe") ?? (CommandLine.arguments.first ?? "")
    }

    public static func directoryName(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        if slash == path.startIndex { return "/" }
        return String(path[..<slash])
    }

    public static func baseName(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    /// Finds `name` on `$PATH` (or returns it if it already has a slash).
    public static func findExecutable(_ name: String, path: String? = Environment.get("PATH")) -> String? {
        if name.contains("/") { return isExecutable(name) ? name : nil }
        for dir in (path ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") {
            let candidate = String(dir) + "/" + name
            if isExecutable(candidate) { return candidate }
        }
        return nil
    }
}
