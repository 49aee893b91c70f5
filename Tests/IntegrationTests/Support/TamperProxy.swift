import Foundation
import Glibc
import SystemKit

/// A provider that lies (Fixtures/tamper_provider.py): a transparent proxy in
/// front of Glewlwyd that, as its mode file says, breaks one thing in the
/// ID token (re-signed with a key it adds to the JWKS, so only that thing is
/// wrong), in the metadata, or in the token endpoint's answer.
final class TamperProxy {
    let pid: Int32
    let info: [String: Any]

    init(desktop: TestDesktop, upstream: String, port: Int) throws {
        let out = desktop.root + "/tamper.json"
        let err = desktop.root + "/tamper.err"
        pid = try Subprocess.spawn(
            [
                "/usr/bin/python3", Paths.fixtures + "/tamper_provider.py", "--upstream", upstream, "--port", "\(port)",
                "--dir", desktop.root + "/tamper",
            ],
            environment: desktop.environment, stdout: .file(out), stderr: .file(err))
        guard eventually(timeoutMilliseconds: 20_000, { ((try? FileSystem.readText(out)) ?? "").hasSuffix("\n") }),
            let json = try? JSONSerialization.jsonObject(with: Data(FileSystem.readText(out).utf8)) as? [String: Any]
        else {
            kill(pid, SIGTERM)
            throw SystemError("tamper_provider did not start: \((try? FileSystem.readText(err)) ?? "")", code: ETIMEDOUT)
        }
        info = json
    }

    /// Sets what the next requests break (written whole: a half-written file reads as honest).
    func set(_ mode: String) throws {
        try FileSystem.writeAtomically(info["mode_file"] as! String, text: mode + "\n", permissions: 0o644)
    }

    /// Every request the proxy answered, as JSON objects.
    func requests() -> [[String: Any]] {
        ((try? FileSystem.readText(info["requests_log"] as! String, maxBytes: 1 << 24)) ?? "").split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    deinit {
        kill(pid, SIGTERM)
        Subprocess.wait(pid)
    }
}
