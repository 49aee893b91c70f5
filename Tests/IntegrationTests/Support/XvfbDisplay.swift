import Foundation
import Glibc
import SystemKit

/// A private X server for a test (Fixtures/xvfb_display.py), for an app that needs a display to stay up.
final class XvfbDisplay {
    let pid: Int32
    let display: String

    init(desktop: TestDesktop) throws {
        let out = desktop.root + "/xvfb-\(Clock.monotonicNanoseconds()).json"
        pid = try Subprocess.spawn(
            ["/usr/bin/python3", Paths.fixtures + "/xvfb_display.py", "--until", "signal"],
            environment: desktop.environment, stdout: .file(out), stderr: .file(out + ".err"))
        guard eventually(timeoutMilliseconds: 20_000, { ((try? FileSystem.readText(out)) ?? "").hasSuffix("\n") }),
            let json = try? JSONSerialization.jsonObject(with: Data(FileSystem.readText(out).utf8)) as? [String: Any],
            let display = json["display"] as? String
        else {
            Subprocess.stop(pid, name: "Xvfb")
            throw SystemError("Xvfb did not start: \((try? FileSystem.readText(out + ".err")) ?? "")", code: ETIMEDOUT)
        }
        self.display = display
    }

    deinit {
        Subprocess.stop(pid, name: "Xvfb")
    }
}
