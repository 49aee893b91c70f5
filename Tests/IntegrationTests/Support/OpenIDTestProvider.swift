import Glibc
import SystemKit

/// A real OpenID provider a test starts (Glewlwyd, django-oauth-toolkit), as
/// `linkctl login` and a scripted sign-in see it.
protocol OpenIDTestProvider: AnyObject {
    var issuer: String { get }
    var clientID: String { get }
    /// The fixture's JSON line, which the sign-in script reads.
    var infoPath: String { get }
    /// Signs alice in with no browser and prints the provider's redirect (`--provider INFO --url AUTHORIZE_URL`).
    var signinScript: String { get }
}

extension TestDesktop {
    /// `linkctl login NAME --no-browser` (or `command`, which prints the URL on stderr), signed in at
    /// `provider` as a person would, the callback clicked; the command's exit status and what it printed.
    /// `inside`: how the command is run (in a sandbox, say); `alter`: what an attacker makes of the callback on its
    /// way.
    func signIn(
        _ name: String, at provider: some OpenIDTestProvider, command: [String]? = nil, environment: [String]? = nil,
        inside wrap: ([String]) -> [String] = { $0 },
        alter: (String) -> String = { $0 }
    ) throws -> (status: Int32, errorText: String, output: String) {
        let out = root + "/login-\(name).out"
        let err = root + "/login-\(name).err"
        // A second login of the same name reads its own URL, not the first one's.
        for f in [out, err] { try? FileSystem.remove(f) }
        let pid = try Subprocess.spawn(
            wrap(command ?? [Paths.linkctl, "login", name, "--no-browser", "--timeout", "60000"]),
            environment: environment ?? self.environment,
            stdout: .file(out), stderr: .file(err))
        var url = ""
        _ = eventually(timeoutMilliseconds: 20_000) {
            let text = (try? FileSystem.readText(err)) ?? ""
            guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("  http") }) else { return false }
            url = line.trimmingCharacters(in: .whitespaces)
            return true
        }
        guard !url.isEmpty else {
            kill(pid, SIGKILL)
            Subprocess.wait(pid)
            throw SystemError("linkctl login printed no URL: \((try? FileSystem.readText(err)) ?? "")", code: EPROTO)
        }
        let signin = try run(["/usr/bin/python3", provider.signinScript, "--provider", provider.infoPath, "--url", url])
        guard signin.status == 0 else { throw SystemError("sign-in failed: \(signin.errorText)", code: EPROTO) }
        let callback = alter(signin.text.trimmingCharacters(in: .whitespacesAndNewlines))
        if callback.hasPrefix("http://127.0.0.1:") {
            // A loopback redirect: the browser would load it from the daemon's listener.
            _ = try run(["curl", "-s", "-o", "/dev/null", "--max-time", "10", callback])
        } else {
            _ = try linkctl("open", callback)
        }
        let status = Subprocess.wait(pid, timeoutMilliseconds: 60_000)
        let output = (try? FileSystem.readText(out)) ?? ""
        return (status, ((try? FileSystem.readText(err)) ?? "") + output, output)
    }
}
