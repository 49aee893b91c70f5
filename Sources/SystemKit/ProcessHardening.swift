internal import CLinux
import Glibc

/// Keeps login secrets out of core dumps and away from same-user ptrace
/// (threat model P4): `PR_SET_DUMPABLE 0` and a zero core limit.
public enum ProcessHardening {
    @discardableResult
    public static func disableCoreDumps() -> Bool {
        var limit = rlimit(rlim_cur: 0, rlim_max: 0)
        let a = setrlimit(Int32(RLIMIT_CORE.rawValue), &limit) == 0
        let b = lr_set_dumpable(0) == 0
        return a && b
    }
}
