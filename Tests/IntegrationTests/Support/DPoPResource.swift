import Foundation
import Glibc
import SystemKit

/// A resource server of the test's that takes DPoP-bound tokens only
/// (Fixtures/dpop_resource.py, run by the DOT venv's Python for jwcrypto):
/// Glewlwyd's `userinfo` does not check a bound token's key, this does.
final class DPoPResource {
    let pid: Int32
    let origin: String
    let log: String

    init(desktop: TestDesktop, requireNonce: Bool = false, jwks: String? = nil) throws {
        let info = desktop.root + "/dpop-resource.json"
        let err = desktop.root + "/dpop-resource.err"
        pid = try Subprocess.spawn(
            [DjangoOAuthToolkit.python, Paths.fixtures + "/dpop_resource.py", "--info", info]
                + (requireNonce ? ["--require-nonce"] : [])
                + (jwks.map { ["--jwks", $0] } ?? []),
            environment: desktop.environment, stdout: .null, stderr: .file(err))
        guard eventually(timeoutMilliseconds: 30_000, { FileSystem.exists(info) }),
            let text = try? FileSystem.readText(info),
            let json = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
            let origin = json["origin"] as? String, let log = json["log"] as? String
        else {
            Subprocess.stop(pid, name: "dpop_resource.py")
            throw SystemError(
                "the DPoP resource did not start: \((try? FileSystem.readText(err)) ?? "")", code: ETIMEDOUT)
        }
        self.origin = origin
        self.log = log
    }

    /// `curl` with these header lines (`Name: value`) to `url`: the HTTP status, the body, and the `DPoP-Nonce` it
    /// gave.
    func call(_ desktop: TestDesktop, _ method: String, _ url: String, headers: [String]) throws -> (
        status: Int, body: [String: Any], nonce: String?
    ) {
        let r = try desktop.run(
            ["curl", "-s", "-X", method, "-w", "\n%{http_code} %header{dpop-nonce}"] + headers.flatMap { ["-H", $0] }
                + [url])
        let lines = r.text.split(separator: "\n", omittingEmptySubsequences: false)
        let tail = (lines.last ?? "").split(separator: " ")
        let status = tail.first.flatMap { Int($0) } ?? 0
        let body =
            (try? JSONSerialization.jsonObject(with: Data(lines.dropLast().joined(separator: "\n").utf8))
                as? [String: Any]) ?? [:]
        return (status, body, tail.count > 1 ? String(tail[1]) : nil)
    }

    deinit {
        Subprocess.stop(pid, name: "dpop_resource.py")
    }
}
