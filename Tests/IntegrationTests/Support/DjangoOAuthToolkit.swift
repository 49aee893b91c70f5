import Foundation
import Glibc
import SystemKit

/// A private django-oauth-toolkit 3.4.1 for one test (Fixtures/dot_provider.py), run by the
/// virtual environment `scripts/setup --test` makes from PyPI: the second provider, from
/// another code base than Glewlwyd, on `http://127.0.0.1:PORT/o`.
final class DjangoOAuthToolkit: OpenIDTestProvider {
    static let python = Paths.root + "/.build/test-tools/dot-venv/bin/python"
    static let unavailable: String? =
        FileSystem.isExecutable(python)
        ? nil : "django-oauth-toolkit is not installed: scripts/setup --test makes \(python) from PyPI, and could not"

    let pid: Int32
    let info: [String: Any]
    let infoPath: String

    /// `accessTokenSeconds`: how long its access tokens live.
    init(desktop: TestDesktop, redirectURIs: [String], accessTokenSeconds: Int = 36000) throws {
        infoPath = desktop.root + "/dot.json"
        let err = desktop.root + "/dot.err"
        pid = try Subprocess.spawn(
            [
                Self.python, Paths.fixtures + "/dot_provider.py", "--dir", desktop.root + "/dot",
                "--access-token-seconds", String(accessTokenSeconds),
            ]
                + redirectURIs.flatMap { ["--redirect-uri", $0] },
            environment: desktop.environment, stdout: .file(infoPath), stderr: .file(err))
        let path = infoPath
        guard eventually(timeoutMilliseconds: 60_000, { ((try? FileSystem.readText(path)) ?? "").hasSuffix("\n") }),
            let line = try? FileSystem.readText(infoPath),
            let json = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        else {
            Subprocess.stop(pid, name: "dot_provider.py")
            throw SystemError(
                "django-oauth-toolkit did not start: \((try? FileSystem.readText(err)) ?? "")", code: ETIMEDOUT)
        }
        info = json
    }

    var issuer: String { info["issuer"] as! String }
    var clientID: String { info["client_id"] as! String }
    var tokenEndpoint: String { info["token_endpoint"] as! String }
    var signinScript: String { Paths.fixtures + "/dot_signin.py" }

    /// alice enrolls a second factor: from her next sign-in on, the provider says she signed in with it
    /// (`acr` urn:example:mfa; Fixtures/dot_provider.py). Written to the provider's own database, as its admin would.
    func enrollSecondFactor() throws {
        let db = info["db"] as! String
        let sql =
            "INSERT INTO auth_user_groups (user_id, group_id) SELECT u.id, g.id FROM auth_user u, auth_group g WHERE u.username = 'alice' AND g.name = 'mfa'"
        let r = try Subprocess.run([
            "/usr/bin/python3", "-c",
            "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); n = c.execute(sys.argv[2]).rowcount; c.commit(); sys.exit(0 if n == 1 else 1)",
            db, sql,
        ])
        guard r.status == 0 else { throw SystemError("alice was not added to mfa: \(r.errorText)", code: EIO) }
    }

    deinit {
        Subprocess.stop(pid, name: "dot_provider.py")
    }
}
