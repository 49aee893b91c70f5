import Glibc
import SystemKit

/// A fresh directory under /tmp, removed when released.
final class TestDirectory {
    let path: String

    init(_ prefix: String = "lr") {
        var template = Array("/tmp/\(prefix)-XXXXXX".utf8CString)
        let p = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        path = String(cString: p!)
        chmod(path, 0o700)
    }

    deinit {
        if Environment.get("LINKROUTER_KEEP_TEST_DIRS") == nil { _ = try? Subprocess.run(["/bin/rm", "-rf", path]) }
    }
}

/// Polls `condition` until it holds or `timeoutMilliseconds` pass.
@discardableResult
func eventually(timeoutMilliseconds: Int = 5000, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Clock.monotonicMilliseconds() + Int64(timeoutMilliseconds)
    while true {
        if try condition() { return true }
        if Clock.monotonicMilliseconds() > deadline { return false }
        Clock.sleep(milliseconds: 10)
    }
}
