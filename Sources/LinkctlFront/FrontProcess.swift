import CLibc

/// The front's process: its arguments, environment and streams, and the
/// hand-over to the full linkctl. With `FrontBus`, the only file of the
/// front that calls C.
struct FrontProcess {
    let argc: Int32
    let argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>

    /// The arguments as strings, or nil when one is not valid UTF-8 (the full
    /// linkctl refuses such an argument and says which).
    func arguments() -> [String]? {
        var out: [String] = []
        for i in 0..<Int(argc) {
            guard let p = argv[i], let s = String(validatingCString: p) else { return nil }
            out.append(s)
        }
        return out
    }

    /// The variable's value, or nil when it is unset or empty.
    static func nonEmpty(_ name: String) -> String? {
        guard let p = getenv(name), p[0] != 0 else { return nil }
        return String(cString: p)
    }

    static func isSet(_ name: String) -> Bool { getenv(name) != nil }

    /// A stream socket connected to the UNIX socket at `path` (`abstract`: a name in the abstract namespace),
    /// close-on-exec: the bus's (`FrontBus`) and the agent's (`FrontAgent`). Nil when it cannot be reached.
    static func connectUnix(_ path: String, abstract: Bool = false) -> Int32? {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = (abstract ? [0] : []) + Array(path.utf8)
        guard !path.isEmpty, bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (abstract ? 0 : 1))
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, length) }
        }
        guard connected == 0 else {
            close(fd)
            return nil
        }
        return fd
    }

    static func out(_ text: String) { write(text, to: 1) }
    static func err(_ text: String) { write(text, to: 2) }
    /// A one-line reason on stderr, prefixed with the program name (as linkctl's `Output.error`).
    static func error(_ text: String) { err("linkctl: " + text + "\n") }

    /// All of `text`, retried on EINTR and short writes, as `StandardStreams` does.
    static func write(_ text: String, to fd: Int32) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { CLibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 {
                if lr_errno() == EINTR { continue }
                return
            }
            offset += n
        }
    }

    /// Standard input to its end, at most `maxBytes` (as `StandardStreams.readAll`).
    static func readAll(maxBytes: Int) -> [UInt8] {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while out.count < maxBytes {
            let n = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress!, $0.count) }
            if n < 0 && lr_errno() == EINTR { continue }
            guard n > 0 else { break }
            out += buffer[..<n]
        }
        return Array(out.prefix(maxBytes))
    }

    /// Replaces this process with the full linkctl, with the same arguments
    /// (`argv[0]` too, so a helper's name still selects the helper). With
    /// `unreachable`, the full linkctl learns that the front's call went out
    /// and no daemon answered (`DaemonReachability.frontFoundUnreachable`);
    /// with `sentAs`, which call it was, when the daemon may have it.
    func handOver(unreachable: String? = nil, sentAs: ClickID? = nil) -> Never {
        if let unreachable { setenv(DaemonReachability.frontFoundUnreachable, unreachable, 1) }
        if let sentAs { setenv(DaemonReachability.frontSentAs, sentAs.text, 1) }
        // Never a directory taken relative to where it runs (git runs its helper in the repository's top directory,
        // which a repository could fill): with no absolute path of its own, the front says so and runs nothing.
        guard let front = Self.executableDirectory() else {
            Self.error(
                "linkctl could not find where it is installed (/proc/self/exe could not be read: is /proc mounted?); run "
                    + LinkctlLayout.fullName + " from linkrouter's libexec directory instead")
            exit(ExitCode.unavailable)
        }
        let candidates = LinkctlLayout.fullCandidates(frontDirectory: front)
        var why: Int32 = ENOENT
        for path in candidates {
            execv(path, argv)
            why = lr_errno()
        }
        var looked = ""
        for path in candidates { looked += (looked.isEmpty ? "" : ", ") + path }
        Self.error(
            "the rest of linkctl could not be run (looked for " + looked + ": " + String(cString: strerror(why))
                + "); reinstall linkrouter")
        exit(ExitCode.unavailable)
    }

    /// How to run the daemon by hand, for "not reachable", as the full linkctl says it
    /// (`DaemonReachability.daemonCommand`): `linkrouterd` where `PATH` finds it, else the one beside linkctl.
    static func daemonCommand() -> String {
        var onPath = false
        if let path = getenv("PATH") {
            for dir in String(cString: path).split(separator: ":") where !dir.isEmpty {
                if access(String(dir) + "/linkrouterd", X_OK) == 0 {
                    onPath = true
                    break
                }
            }
        }
        let beside = executableDirectory().map { $0 + "/linkrouterd" }
        return DaemonReachability.daemonCommand(
            onPath: onPath, besideLinkctl: beside.flatMap { access($0, X_OK) == 0 ? $0 : nil })
    }

    /// The directory of this executable with symlinks resolved (`~/.local/bin/linkctl` → the build or install
    /// directory); nil when the kernel does not say (no `/proc`), or says something that is not an absolute path.
    static func executableDirectory() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = buffer.withUnsafeMutableBufferPointer { readlink("/proc/self/exe", $0.baseAddress!, $0.count - 1) }
        guard n > 0 else { return nil }
        let bytes = buffer[..<n].map { UInt8(bitPattern: $0) }
        guard bytes.first == 0x2F, let slash = bytes.lastIndex(of: 0x2F) else { return nil }
        return slash == 0 ? "/" : String(decoding: bytes[..<slash], as: UTF8.self)
    }
}
