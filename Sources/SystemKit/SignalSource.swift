internal import CLinux
import Glibc

/// Signals as a readable descriptor (`signalfd(2)`): the handler runs in the
/// loop like any other event, so no code ever runs in signal context.
public final class SignalSource {
    private let fd: Int32

    /// Blocks `signals` for the process and opens a descriptor that reports them.
    public init(_ signals: [Int32]) throws(SystemError) {
        var mask = sigset_t()
        sigemptyset(&mask)
        for s in signals { sigaddset(&mask, s) }
        guard sigprocmask(SIG_BLOCK, &mask, nil) == 0 else { throw SystemError("sigprocmask") }
        let fd = signalfd(-1, &mask, Int32(SFD_NONBLOCK | SFD_CLOEXEC))
        guard fd >= 0 else { throw SystemError("signalfd") }
        self.fd = fd
    }

    /// Calls `handler` with each signal number as it arrives.
    public func attach(to loop: EventLoop, _ handler: @escaping (Int32) -> Void) {
        loop.watch(fd, for: .readable) { [fd] _ in
            var info = signalfd_siginfo()
            while read(fd, &info, MemoryLayout<signalfd_siginfo>.size) == MemoryLayout<signalfd_siginfo>.size {
                handler(Int32(info.ssi_signo))
            }
        }
    }

    /// Ignores SIGPIPE: a peer that went away is an error return, not a death.
    public static func ignoreBrokenPipes() { signal(SIGPIPE, SIG_IGN) }

    deinit { close(fd) }
}
