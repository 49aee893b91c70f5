import Glibc
import SystemKit

/// A fresh directory under /tmp, removed (recursively) when released.
final class TemporaryDirectory {
    let path: String

    init(_ prefix: String = "linkrouter-test") {
        var template = Array("/tmp/\(prefix)-XXXXXX".utf8CString)
        let p = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        path = String(cString: p!)
    }

    deinit { _ = try? Subprocess.run(["/bin/rm", "-rf", path]) }
}
