import Glibc
import SystemKit

/// A protected resource a test serves (Fixtures/protected_resource.py): its
/// metadata (RFC 9728) names the test's provider as where to sign in, and
/// it takes tokens that provider's userinfo accepts.
final class ProtectedResourceStandIn {
    let pid: Int32
    let directory: String
    let port: String
    /// Served over https (`tls`): its self-signed certificate, for a client's `SSL_CERT_FILE`.
    let tls: Bool

    init(desktop: TestDesktop, provider: some OpenIDTestProvider, name: String = "resource", tls: Bool = false) throws {
        directory = desktop.root + "/" + name
        self.tls = tls
        let portFile = desktop.root + "/\(name).port"
        pid = try Subprocess.spawn(
            [
                "/usr/bin/python3", Paths.fixtures + "/protected_resource.py", "--provider", provider.infoPath, "--dir",
                directory, "--port-file", portFile,
            ] + (tls ? ["--tls"] : []),
            environment: desktop.environment, stdout: .null, stderr: .file(desktop.root + "/\(name).err"))
        guard eventually(timeoutMilliseconds: 15_000, { FileSystem.status(portFile) != nil }),
            let port = try? FileSystem.readText(portFile)
        else {
            Subprocess.stop(pid, name: "protected_resource.py")
            throw SystemError("protected_resource.py did not start", code: ETIMEDOUT)
        }
        self.port = port
    }

    /// The resource's URL (its identifier).
    var url: String { "\(tls ? "https" : "http")://127.0.0.1:\(port)/mcp" }

    /// Its certificate (with `tls`), the one trust anchor a client needs for it.
    var certificate: String { directory + "/cert.pem" }

    /// What its metadata says from now on (`honest`, `other-resource`, `malformed`, `no-servers`, `missing`).
    func set(_ mode: String) throws {
        try FileSystem.writeAtomically(directory + "/mode", text: mode + "\n", permissions: 0o644)
    }

    /// How it answers a request with a token from now on (`none`, `invalid-token-once`, `invalid-token-always`,
    /// `insufficient-scope`, `step-up`).
    func challenge(_ mode: String) throws {
        try FileSystem.writeAtomically(directory + "/challenge", text: mode + "\n", permissions: 0o644)
    }

    /// Every request's outcome, in order (`metadata MODE`, `200 TAIL`, `401 reason`).
    func log() -> [String] {
        ((try? FileSystem.readText(directory + "/requests.log")) ?? "").split(separator: "\n").map(String.init)
    }

    deinit { Subprocess.stop(pid, name: "protected_resource.py") }
}
