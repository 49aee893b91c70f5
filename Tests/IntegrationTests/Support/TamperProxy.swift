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
    private let upstreamFile: String

    /// `http://127.0.0.1:PORT`: what the provider behind it must name as its own origin.
    var origin: String { info["origin"] as! String }

    /// Where requests go from now on: the provider's own origin.
    func connect(upstream: String) throws {
        try FileSystem.writeAtomically(upstreamFile, text: upstream + "\n", permissions: 0o644)
    }

    /// The proxy listens on a port of its own choosing first (`origin`); the
    /// upstream is given later (`connect`), once a provider that names that
    /// origin as its own runs. A port picked free and bound later could be
    /// taken meanwhile by another test's server (seen in CI).
    init(desktop: TestDesktop) throws {
        let out = desktop.root + "/tamper.json"
        let err = desktop.root + "/tamper.err"
        upstreamFile = desktop.root + "/tamper-upstream"
        pid = try Subprocess.spawn(
            [
                "/usr/bin/python3", Paths.fixtures + "/tamper_provider.py", "--upstream-file", upstreamFile, "--port",
                "0",
                "--dir", desktop.root + "/tamper",
            ],
            environment: desktop.environment, stdout: .file(out), stderr: .file(err))
        guard eventually(timeoutMilliseconds: 20_000, { ((try? FileSystem.readText(out)) ?? "").hasSuffix("\n") }),
            let json = try? JSONSerialization.jsonObject(with: Data(FileSystem.readText(out).utf8)) as? [String: Any]
        else {
            Subprocess.stop(pid, name: "tamper_provider.py")
            throw SystemError(
                "tamper_provider did not start: \((try? FileSystem.readText(err)) ?? "")", code: ETIMEDOUT)
        }
        info = json
    }

    /// Sets what the next requests break (written whole: a half-written file reads as honest).
    func set(_ mode: String) throws {
        try FileSystem.writeAtomically(info["mode_file"] as! String, text: mode + "\n", permissions: 0o644)
    }

    /// `hold-token-answer` from now on, a release of an earlier hold taken back.
    func hold() throws {
        let release = (info["mode_file"] as! String).replacingOccurrences(of: "/mode", with: "/release")
        if FileSystem.status(release) != nil { try FileSystem.remove(release) }
        try set("hold-token-answer")
    }

    /// In `hold-token-answer` mode: the held answers go out, and later ones are not held.
    func release() throws {
        try FileSystem.writeAtomically(
            (info["mode_file"] as! String).replacingOccurrences(of: "/mode", with: "/release"), text: "",
            permissions: 0o644)
    }

    /// How many answers the proxy has held so far (in `hold-token-answer` mode).
    func heldCount() -> Int { requests().filter { $0["held"] as? Bool == true }.count }

    /// In `hold-token-answer` mode: how many held answers have gone out to the client since.
    func delivered() -> Int {
        let file = (info["mode_file"] as! String).replacingOccurrences(of: "/mode", with: "/delivered")
        return ((try? FileSystem.readText(file)) ?? "").split(separator: "\n").count
    }

    /// Every request the proxy answered, as JSON objects.
    func requests() -> [[String: Any]] {
        ((try? FileSystem.readText(info["requests_log"] as! String, maxBytes: 1 << 24)) ?? "").split(separator: "\n")
            .compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
    }

    deinit {
        Subprocess.stop(pid, name: "tamper_provider.py")
    }
}
