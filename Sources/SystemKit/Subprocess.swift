internal import CLinux
import Glibc

/// Starting programs with `posix_spawn`: an argv array, never a shell, so no
/// byte of a URL is ever interpreted (threat model E1).
public enum Subprocess {
    /// What a child's standard stream is connected to.
    public enum Stream: Sendable, Equatable {
        case inherit, null
        /// Appended to this file (created 0600 if missing).
        case file(String)
    }

    /// How a program finished.
    public struct Outcome: Sendable {
        public let status: Int32
        public let output: [UInt8]
        public let errorOutput: [UInt8]
        public var text: String { String(decoding: output, as: UTF8.self) }
        public var errorText: String { String(decoding: errorOutput, as: UTF8.self) }
    }

    /// Starts `argv` and returns its pid without waiting. `detached` puts it in
    /// its own session, so it outlives the parent and its terminal.
    public static func spawn(
        _ argv: [String], environment: [String]? = nil, detached: Bool = false,
        stdin: Stream = .null, stdout: Stream = .inherit, stderr: Stream = .inherit,
        workingDirectory: String? = nil
    ) throws(SystemError) -> Int32 {
        try launch(
            argv, environment: environment, detached: detached, stdin: stdin, stdout: stdout, stderr: stderr,
            outputPipe: nil, errorPipe: nil, workingDirectory: workingDirectory)
    }

    /// Runs `argv` to the end, collecting its output; kills it after `timeoutMilliseconds`.
    public static func run(
        _ argv: [String], environment: [String]? = nil, timeoutMilliseconds: Int = 30_000,
        workingDirectory: String? = nil
    ) throws(SystemError) -> Outcome {
        var out: [Int32] = [0, 0]
        var err: [Int32] = [0, 0]
        guard pipe2(&out, O_CLOEXEC) == 0 else { throw SystemError("pipe2") }
        guard pipe2(&err, O_CLOEXEC) == 0 else {
            close(out[0])
            close(out[1])
            throw SystemError("pipe2")
        }
        let pid: pid_t
        do {
            pid = try launch(
                argv, environment: environment, detached: false, stdin: .null, stdout: .inherit, stderr: .inherit,
                outputPipe: out[1], errorPipe: err[1], workingDirectory: workingDirectory)
        } catch {
            for fd in out + err { close(fd) }
            throw error
        }
        close(out[1])
        close(err[1])
        var collected: [[UInt8]] = [[], []]
        var open = [out[0], err[0]]
        let deadline = Clock.monotonicMilliseconds() + Int64(timeoutMilliseconds)
        var buffer = [UInt8](repeating: 0, count: 65536)
        while open.contains(where: { $0 >= 0 }) {
            let left = deadline - Clock.monotonicMilliseconds()
            if left <= 0 {
                kill(pid, SIGKILL)
                break
            }
            var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let n = poll(&fds, nfds_t(fds.count), Int32(min(left, 1000)))
            if n < 0 && errno != EINTR { break }
            for i in 0..<fds.count where fds[i].fd >= 0 && fds[i].revents != 0 {
                let r = buffer.withUnsafeMutableBytes { Glibc.read(fds[i].fd, $0.baseAddress, $0.count) }
                if r > 0 {
                    collected[i].append(contentsOf: buffer[0..<r])
                } else if r == 0 || (errno != EINTR && errno != EAGAIN) {
                    close(open[i])
                    open[i] = -1
                }
            }
        }
        for fd in open where fd >= 0 { close(fd) }
        return Outcome(status: wait(pid), output: collected[0], errorOutput: collected[1])
    }

    /// Waits for `pid` and returns its exit status (128 + signal when killed).
    @discardableResult
    public static func wait(_ pid: Int32) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { return -1 }
        }
        return decode(status)
    }

    /// Waits up to `timeoutMilliseconds` for `pid` to exit by itself, then
    /// kills it: a wait that can end, so a child that never exits cannot
    /// hold its parent (a test run, say) forever. Its exit status (137 when
    /// it was killed; -1 when it is not this process's child).
    @discardableResult
    public static func wait(_ pid: Int32, timeoutMilliseconds: Int) -> Int32 {
        waitOrKill(pid, timeoutMilliseconds: timeoutMilliseconds).status
    }

    /// SIGTERM, `graceMilliseconds` to exit, then SIGKILL: a child stopped
    /// without ever waiting on one that ignores or never gets to its SIGTERM.
    /// `name` says on standard error which one had to be killed, and so why
    /// a run was slow.
    @discardableResult
    public static func stop(_ pid: Int32, name: String, graceMilliseconds: Int = 5000) -> Int32 {
        kill(pid, SIGTERM)
        let (status, killed) = waitOrKill(pid, timeoutMilliseconds: graceMilliseconds)
        if killed {
            StandardStreams.err("\(name) (pid \(pid)) did not exit within \(graceMilliseconds) ms of SIGTERM; killed\n")
        }
        return status
    }

    private static func waitOrKill(_ pid: Int32, timeoutMilliseconds: Int) -> (status: Int32, killed: Bool) {
        let deadline = Clock.monotonicMilliseconds() + Int64(timeoutMilliseconds)
        var status: Int32 = 0
        while true {
            let r = waitpid(pid, &status, WNOHANG)
            if r == pid { return (decode(status), false) }
            if r < 0 && errno != EINTR { return (-1, false) }
            if Clock.monotonicMilliseconds() >= deadline { break }
            Clock.sleep(milliseconds: 10)
        }
        kill(pid, SIGKILL)
        return (wait(pid), true)
    }

    /// Reaps every finished child without blocking (the daemon's SIGCHLD handler).
    public static func reapFinished() -> [(pid: Int32, status: Int32)] {
        var out: [(Int32, Int32)] = []
        while true {
            var status: Int32 = 0
            let pid = waitpid(-1, &status, WNOHANG)
            if pid <= 0 { break }
            out.append((pid, decode(status)))
        }
        return out
    }

    static func decode(_ status: Int32) -> Int32 {
        let signal = status & 0x7F
        if signal == 0 { return (status >> 8) & 0xFF }
        return 128 + signal
    }

    private static func redirect(_ stream: Stream, to fd: Int32, _ actions: inout posix_spawn_file_actions_t) {
        switch stream {
        case .inherit: break
        case .null: posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", O_WRONLY, 0)
        case .file(let path): posix_spawn_file_actions_addopen(&actions, fd, path, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        }
    }

    private static func launch(
        _ argv: [String], environment: [String]?, detached: Bool, stdin: Stream, stdout: Stream,
        stderr: Stream, outputPipe: Int32?, errorPipe: Int32?,
        workingDirectory: String?
    ) throws(SystemError) -> Int32 {
        guard let program = argv.first, !argv.contains(where: { $0.utf8.contains(0) }) else {
            throw SystemError("spawn", code: EINVAL)
        }
        guard let path = FileSystem.findExecutable(program) else {
            throw SystemError("spawn", path: program, code: ENOENT)
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if stdin != .inherit { posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0) }
        if let outputPipe {
            posix_spawn_file_actions_adddup2(&actions, outputPipe, 1)
        } else {
            redirect(stdout, to: 1, &actions)
        }
        if let errorPipe {
            posix_spawn_file_actions_adddup2(&actions, errorPipe, 2)
        } else {
            redirect(stderr, to: 2, &actions)
        }
        if let workingDirectory { posix_spawn_file_actions_addchdir_np(&actions, workingDirectory) }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // The child starts with no blocked signals and default dispositions,
        // whatever the daemon blocked or ignored for itself.
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for s in [SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGCHLD, SIGQUIT] { sigaddset(&defaults, s) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var flags = Int32(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)
        if detached { flags |= Int32(LR_POSIX_SPAWN_SETSID) }
        posix_spawnattr_setflags(&attributes, Int16(flags))

        let cArgs = argv.map { strdup($0) }
        let cEnv = (environment ?? Environment.entries()).filter { !$0.utf8.contains(0) }.map { strdup($0) }
        defer {
            for p in cArgs { free(p) }
            for p in cEnv { free(p) }
        }
        var argvPointers = cArgs + [nil]
        var envPointers = cEnv + [nil]
        var pid: Int32 = 0
        let rc = posix_spawn(&pid, path, &actions, &attributes, &argvPointers, &envPointers)
        guard rc == 0 else { throw SystemError("spawn", path: path, code: rc) }
        return pid
    }
}
