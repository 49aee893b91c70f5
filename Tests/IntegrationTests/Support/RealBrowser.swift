import Foundation
import Glibc
import SystemKit
import Testing

/// Debian's real browsers, as the real-browser suite drives them (Fixtures/REAL-BROWSERS.md).
enum RealBrowser: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case chromium, firefox

    /// The desktop id Debian's package installs; the test installs its own under that name.
    var desktopID: String { self == .chromium ? "chromium.desktop" : "firefox-esr.desktop" }
    var testDescription: String { rawValue }

    /// What must be installed for this browser's tests, and what is missing.
    var missing: [String] {
        let needed =
            self == .chromium ? ["/usr/lib/chromium/chromium", "/usr/bin/chromedriver"] : ["/usr/bin/firefox-esr"]
        return (needed + ["/usr/bin/glewlwyd", "/usr/bin/python3"]).filter { !FileSystem.isExecutable($0) }
    }

    /// Whether this browser's tests can run; when not, why, on one line (its suite skips only then).
    var unavailable: String? {
        guard !missing.isEmpty else { return nil }
        return
            "\(rawValue)'s tests skipped: \(missing.joined(separator: ", ")) not installed (scripts/setup --test installs chromium chromium-driver firefox-esr glewlwyd)"
    }

    /// A desktop entry, `desktopID`, in the test's applications directory whose "browser"
    /// is the real one driven like a person (browser_login.py): it opens the URL the daemon
    /// gives it, signs in at the provider's real page and ends at the redirect.
    @discardableResult
    func install(
        _ desktop: TestDesktop, profile: String, provider: Glewlwyd, out: String, remembered: Bool = false,
        screenshot: String? = nil, waitFor: String? = nil, policyRoot: String? = nil
    ) throws -> String {
        var exec =
            "/usr/bin/python3 \(Paths.fixtures)/browser_login.py --browser \(rawValue) --profile \(profile)"
            + " --username \(provider.username) --password=\(provider.password) --out \(out) --timeout 90"
        if remembered { exec += " --expect-no-form" }
        if let screenshot { exec += " --screenshot \(screenshot)" }
        if let waitFor { exec += " --wait-file \(waitFor)" }
        if let policyRoot { exec += " --policy-root \(policyRoot)" }
        exec += " --url %u"
        try FileSystem.writeAtomically(
            desktop.applications + "/" + desktopID,
            text: """
                [Desktop Entry]
                Type=Application
                Name=\(rawValue) (driven as a person would)
                Exec=\(exec)
                MimeType=x-scheme-handler/http;x-scheme-handler/https;text/html;

                """, permissions: 0o644)
        return desktopID
    }

    /// The result lines browser_login.py appended to `out`, as JSON objects.
    static func results(_ out: String) -> [[String: Any]] {
        ((try? FileSystem.readText(out)) ?? "").split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }
}

/// A private Glewlwyd OpenID provider for one test (Fixtures/glewlwyd_provider.py).
final class Glewlwyd: OpenIDTestProvider {
    let pid: Int32
    let info: [String: Any]
    let infoPath: String

    /// `publicOrigin`: Glewlwyd names that origin as its own (issuer, endpoints), for a proxy in front of it.
    /// `revocation`: the revocation endpoint on (RFC 7009; Glewlwyd answers public clients 401).
    /// `par`: pushed authorization requests `off`, `allowed` or `required` (RFC 9126).
    /// `signing`: the ID tokens' key, `rsa` (RS256), `ecdsa` (ES256) or `eddsa` (EdDSA).
    /// `deviceSeconds`: the device grant (RFC 8628) on, its codes valid this long (0: off).
    /// `dpop`: DPoP (RFC 9449) `off` (not listed; Glewlwyd binds any proof anyway), `allowed`, or `nonce` (a nonce
    /// required).
    /// `oneUseRefresh`: refresh tokens rotate one-use with reuse detection (a spent one is an empty 400 and revokes
    /// the chain).
    /// `registration`: open client registration (RFC 7591) with management (RFC 7592); `registrationToken`: the same,
    /// only with an initial access token (`initialAccessToken`).
    init(
        desktop: TestDesktop, redirectURIs: [String], publicOrigin: String? = nil, accessTokenSeconds: Int? = nil,
        revocation: Bool = false, par: String = "off",
        signing: String = "rsa", deviceSeconds: Int = 0, dpop: String = "off", oneUseRefresh: Bool = false,
        registration: Bool = false, registrationToken: Bool = false
    ) throws {
        let dir = desktop.root + "/glewlwyd"
        let path = desktop.root + "/glewlwyd.json"
        infoPath = path
        var argv = ["/usr/bin/python3", Paths.fixtures + "/glewlwyd_provider.py", "--dir", dir]
        argv += redirectURIs.flatMap { ["--redirect-uri", $0] }
        if let publicOrigin { argv += ["--public-origin", publicOrigin] }
        if let accessTokenSeconds { argv += ["--access-token-duration", String(accessTokenSeconds)] }
        if revocation { argv.append("--revocation") }
        if oneUseRefresh { argv.append("--one-use-refresh") }
        if registration || registrationToken { argv += ["--registration", registrationToken ? "token" : "open"] }
        argv += ["--par", par, "--signing", signing, "--device", String(deviceSeconds), "--dpop", dpop]
        pid = try Subprocess.spawn(
            argv,
            environment: desktop.environment, stdout: .file(path), stderr: .file(desktop.root + "/glewlwyd.err"))
        guard eventually(timeoutMilliseconds: 30_000, { ((try? FileSystem.readText(path)) ?? "").hasSuffix("\n") }),
            let line = try? FileSystem.readText(path),
            let json = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        else {
            Subprocess.stop(pid, name: "glewlwyd_provider.py")
            throw SystemError(
                "glewlwyd did not start: \((try? FileSystem.readText(desktop.root + "/glewlwyd.err")) ?? "")",
                code: ETIMEDOUT)
        }
        info = json
    }

    var issuer: String { info["issuer"] as! String }
    /// Glewlwyd's own origin when it sits behind a proxy (`publicOrigin`).
    var directOrigin: String? { info["direct_origin"] as? String }
    var authorizationEndpoint: String { info["authorization_endpoint"] as! String }
    var tokenEndpoint: String { info["token_endpoint"] as! String }
    var jwksURI: String { info["jwks_uri"] as! String }
    var username: String { info["username"] as! String }
    var password: String { info["password"] as! String }
    var clientID: String { info["client_id"] as! String }
    /// A second public client with the same redirects, for a sandboxed app's own account.
    var appClientID: String { info["app_client_id"] as! String }
    var signinScript: String { Paths.fixtures + "/glewlwyd_signin.py" }

    /// An initial access token for the registration endpoint (with `registrationToken`), minted as the provider's
    /// administrator would: the confidential client `registrar`'s client_credentials grant, scope `dcr`.
    func initialAccessToken(_ desktop: TestDesktop) throws -> String {
        let r = try desktop.run([
            "curl", "-s", "-u", "registrar:registrar-secret", "-d", "grant_type=client_credentials", "-d", "scope=dcr",
            tokenEndpoint,
        ])
        guard let json = try? JSONSerialization.jsonObject(with: Data(r.text.utf8)) as? [String: Any],
            let token = json["access_token"] as? String
        else { throw SystemError("no initial access token: \(r.text) \(r.errorText)", code: EPROTO) }
        return token
    }

    /// A client as the provider's administrator sees it (Fixtures/glewlwyd_admin.py); empty when there is none.
    func client(_ desktop: TestDesktop, _ id: String) throws -> [String: Any] {
        let r = try desktop.run([
            "/usr/bin/python3", Paths.fixtures + "/glewlwyd_admin.py", "--provider", infoPath, "--client", id,
        ])
        return (try? JSONSerialization.jsonObject(with: Data(r.text.utf8)) as? [String: Any]) ?? [
            "error": r.text + r.errorText
        ]
    }

    /// Exchanges a code at the real token endpoint (Fixtures/oidc_client.py); the ID token's claims.
    func exchange(_ desktop: TestDesktop, code: String, verifier: String, redirectURI: String) throws -> [String: Any] {
        let r = try desktop.run([
            "/usr/bin/python3", Paths.fixtures + "/oidc_client.py", "token", "--provider", infoPath,
            "--redirect-uri=" + redirectURI, "--code=" + code, "--code-verifier=" + verifier,
        ])
        return (try? JSONSerialization.jsonObject(with: Data(r.text.utf8)) as? [String: Any]) ?? [
            "error": r.text + r.errorText
        ]
    }

    deinit {
        Subprocess.stop(pid, name: "glewlwyd_provider.py")
    }
}

/// Where a test run keeps what a person would look at (screenshots): under the test log directory.
enum TestLogs {
    static var directory: String {
        let dir = Environment.nonEmpty("LINKROUTER_TEST_LOG_DIR") ?? "/tmp/linkrouter-test-logs"
        try? FileSystem.makeDirectories(dir, permissions: 0o755)
        return dir
    }
}
