import Foundation
import Glibc
import SystemKit

/// The https stand-in for a Vipps-style provider that real browsers trust
/// (Fixtures/tls_provider.py): `/authorize` sets cookie `leg1`, `/resume` 302s to
/// the redirect only with that cookie. Its test CA goes into the test HOME's NSS
/// database, which Chromium reads; no certificate check is turned off.
final class TLSStandIn {
    let pid: Int32
    let info: [String: Any]

    init(desktop: TestDesktop) throws {
        let out = desktop.root + "/tls.json"
        let err = desktop.root + "/tls.err"
        pid = try Subprocess.spawn(
            [
                "/usr/bin/python3", Paths.fixtures + "/tls_provider.py", "--dir", desktop.root + "/tls", "--trust-home",
                desktop.home,
            ],
            environment: desktop.environment, stdout: .file(out), stderr: .file(err))
        guard eventually(timeoutMilliseconds: 30_000, { ((try? FileSystem.readText(out)) ?? "").hasSuffix("\n") }),
            let json = try? JSONSerialization.jsonObject(with: Data(FileSystem.readText(out).utf8)) as? [String: Any]
        else {
            Subprocess.stop(pid, name: "tls_provider.py")
            throw SystemError("tls_provider did not start: \((try? FileSystem.readText(err)) ?? "")", code: ETIMEDOUT)
        }
        info = json
    }

    var origin: String { info["origin"] as! String }

    /// Every request the stand-in answered, as JSON objects.
    func requests(_ path: String) -> [[String: Any]] {
        ((try? FileSystem.readText(info["requests_log"] as! String)) ?? "").split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.filter { $0["path"] as? String == path }
    }

    deinit {
        Subprocess.stop(pid, name: "tls_provider.py")
    }
}

/// A desktop entry that starts real headless Chromium on a fixed profile
/// (Fixtures/make_browser_entry.py): the daemon opens URLs in it, and a second
/// start reaches the running browser (its wrapper forwards through DevTools),
/// so `resume_uri` finds the cookies of the first leg.
final class RunningBrowserEntry {
    let id: String
    let profile: String
    let record: String

    init(_ desktop: TestDesktop, id: String, scheme: String, allowOrigin: String) throws {
        self.id = id
        profile = desktop.root + "/profile-" + id
        record = profile + ".invocations.jsonl"
        let r = try desktop.run([
            "/usr/bin/python3", Paths.fixtures + "/make_browser_entry.py", "--browser", "chromium", "--profile",
            profile,
            "--applications", desktop.applications, "--id", id, "--scheme", scheme, "--allow-origin", allowOrigin,
        ])
        guard r.status == 0 else { throw SystemError("make_browser_entry: \(r.errorText)", code: EINVAL) }
    }

    /// Every start of the entry: `forwarded` is set when it reached the running browser.
    func starts() -> [[String: Any]] {
        ((try? FileSystem.readText(record)) ?? "").split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// Stops the browser it started (SIGTERM, so it saves its profile).
    func stop() {
        _ = try? Subprocess.run([
            "/usr/bin/python3", Paths.fixtures + "/make_browser_entry.py", "--stop", "--profile", profile,
        ])
    }

    deinit { stop() }
}
