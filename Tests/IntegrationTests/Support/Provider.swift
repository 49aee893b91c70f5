import Foundation
import Glibc
import SystemKit

/// The stand-in OAuth provider (Fixtures/provider.py) on https://127.0.0.1:PORT,
/// with a certificate of the test's own that the stand-in browsers trust.
final class Provider {
    let port: Int
    let pid: Int32
    let eventsPath: String
    let cafile: String

    init(desktop: TestDesktop) throws {
        let dir = desktop.root + "/provider"
        try FileSystem.makeDirectories(dir, permissions: 0o700)
        cafile = dir + "/cert.pem"
        let key = dir + "/key.pem"
        let gen = try Subprocess.run([
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
            "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", cafile,
        ])
        guard gen.status == 0 else { throw SystemError("openssl req: \(gen.errorText)", code: EINVAL) }
        eventsPath = dir + "/events.jsonl"
        let portFile = dir + "/port"
        pid = try Subprocess.spawn(
            ["python3", Paths.fixtures + "/provider.py", "--cert", cafile, "--key", key, "--events", eventsPath],
            environment: desktop.environment, stdout: .file(portFile), stderr: .file(dir + "/provider.log"))
        var found = 0
        _ = eventually(timeoutMilliseconds: 10_000) {
            found = Int(((try? FileSystem.readText(portFile)) ?? "").split(separator: "\n").first ?? "") ?? 0
            return found > 0
        }
        guard found > 0 else {
            throw SystemError(
                "provider did not start: \((try? FileSystem.readText(dir + "/provider.log")) ?? "")", code: ETIMEDOUT)
        }
        port = found
    }

    var origin: String { "https://127.0.0.1:\(port)" }

    /// Every event so far, as JSON objects.
    func events() -> [[String: Any]] {
        ((try? FileSystem.readText(eventsPath)) ?? "").split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    func events(_ kind: String) -> [[String: Any]] { events().filter { $0["kind"] as? String == kind } }

    /// Waits for the login the browser began at /authorize.
    func waitForLogin(timeoutMilliseconds: Int = 10_000) -> [String: Any]? {
        var login: [String: Any]?
        _ = eventually(timeoutMilliseconds: timeoutMilliseconds) {
            login = events("authorize").last
            return login != nil
        }
        return login
    }

    deinit {
        Subprocess.stop(pid, name: "provider.py")
    }
}

extension TestDesktop {
    /// A stand-in browser with its own cookie jar (Fixtures/browser.py).
    func addCookieBrowser(_ id: String, cafile: String, makeDefault: Bool = false) throws {
        let name = FileSystem.baseName(id).split(separator: ".").first.map(String.init) ?? id
        try FileSystem.writeAtomically(
            applications + "/" + id,
            text: """
                [Desktop Entry]
                Type=Application
                Name=Cookie browser \(name)
                Exec=python3 \(Paths.fixtures)/browser.py --name \(name) --jar \(root)/\(name).cookies --log \(root)/browsers.jsonl --cafile \(cafile) %u
                MimeType=x-scheme-handler/http;x-scheme-handler/https;text/html;

                """, permissions: 0o644)
        if makeDefault { try setDefault(id, for: ["x-scheme-handler/http", "x-scheme-handler/https", "text/html"]) }
    }

    /// What the cookie browsers did, as JSON objects.
    func browserSteps() -> [[String: Any]] {
        ((try? FileSystem.readText(root + "/browsers.jsonl")) ?? "").split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }
}
