import Foundation
import Glibc
import SecretServiceTesting
import SystemKit
import Testing

/// The whole login against a second real provider from another code base
/// (issue 23): django-oauth-toolkit 3.4.1 from PyPI, on oauthlib, where
/// Glewlwyd is C. Code flow with PKCE S256 and RFC 9207's `iss`, through a
/// custom scheme and a loopback listener; an RS256 ID token with `kid`
/// verified; refresh tokens rotated with reuse detection, kept in a real
/// gnome-keyring and read back after a restart.
@Suite(
    "django-oauth-toolkit 3.4.1: the second provider",
    .enabled(if: DjangoOAuthToolkit.unavailable == nil, "\(DjangoOAuthToolkit.unavailable ?? "")"))
struct SecondProviderTests {
    static let scheme = "com.example.app:/callback"
    static let loopback = "http://127.0.0.1/callback"

    final class World {
        let desktop: TestDesktop
        let bus: PrivateBus
        let keyring: GnomeKeyring
        let provider: DjangoOAuthToolkit
        var daemon: DaemonProcess

        init(accessTokenSeconds: Int = 36000) throws {
            desktop = try TestDesktop()
            bus = try PrivateBus(desktop: desktop)
            keyring = try GnomeKeyring(desktop: desktop)
            provider = try DjangoOAuthToolkit(
                desktop: desktop, redirectURIs: [SecondProviderTests.scheme, SecondProviderTests.loopback],
                accessTokenSeconds: accessTokenSeconds)
            daemon = try DaemonProcess(desktop: desktop)
        }

        func add(_ name: String, redirect: String, _ extra: [String] = []) throws -> Subprocess.Outcome {
            try desktop.linkctl(
                [
                    "account", "add", name, "--issuer", provider.issuer, "--client-id", provider.clientID,
                    "--redirect-uri", redirect, "--min-valid", "0",
                ] + extra)
        }

        func token(_ name: String) throws -> String {
            try desktop.linkctl("token", name).text.trimmingCharacters(in: .newlines)
        }
    }

    @Test(
        "a custom-scheme login: the code exchanged with PKCE, the ID token verified, the tokens in the keyring; rotated refresh tokens kept, twice; read back after a restart"
    )
    func customScheme() throws {
        let w = try World(accessTokenSeconds: 3)
        #expect(try w.add("dot", redirect: Self.scheme).status == 0)
        let login = try w.desktop.signIn("dot", at: w.provider)
        #expect(login.status == 0, "\(login.errorText)")
        #expect(eventually(timeoutMilliseconds: 10_000) { (try? w.keyring.items(account: "dot")) ?? (0, 0) == (1, 0) })
        // The ID token the daemon verified at the exchange (RS256, the key by `kid` from the provider's JWKS).
        let idToken = try w.desktop.linkctl("token", "dot", "--id-token")
        #expect(idToken.status == 0, "\(idToken.errorText)")
        let claims = JWTParts.payload(idToken.text.trimmingCharacters(in: .newlines))
        #expect(
            claims["iss"] as? String == w.provider.issuer && claims["aud"] as? String == w.provider.clientID,
            "\(claims)")

        // Each refresh rotates the refresh token and the provider revokes the whole family when an old
        // one comes back: two refreshes in a row succeed only if the daemon kept each new one.
        var seen = [try w.token("dot")]
        for _ in 0..<2 {
            #expect(
                eventually(timeoutMilliseconds: 20_000) {
                    let t = (try? w.token("dot")) ?? ""
                    guard !t.isEmpty, !seen.contains(t) else { return false }
                    seen.append(t)
                    return true
                }, "a refreshed access token after \(seen.count - 1) refresh(es): \(w.daemon.log.suffix(800))")
        }
        #expect(Set(seen).count == 3)

        // A new daemon has nothing in memory: the keyring gives back the latest refresh token.
        _ = w.daemon.stop()
        w.daemon = try DaemonProcess(desktop: w.desktop)
        #expect(
            eventually(timeoutMilliseconds: 20_000) {
                let t = (try? w.token("dot")) ?? ""
                return !t.isEmpty && !seen.contains(t)
            }, "the token after a restart: \(w.daemon.log.suffix(800))")
    }

    @Test(
        "a loopback login: any port on the registered http://127.0.0.1/callback (RFC 8252 §7.3), iss checked, the account signed in"
    )
    func loopback() throws {
        let w = try World()
        #expect(try w.add("dot", redirect: Self.loopback).status == 0)
        let login = try w.desktop.signIn("dot", at: w.provider)
        #expect(login.status == 0, "\(login.errorText)")
        #expect(!(try w.token("dot")).isEmpty)
    }

    @Test(
        "a callback whose iss names another issuer fails the login without an exchange (RFC 9207: this provider sends iss), and nothing is stored"
    )
    func mixUp() throws {
        let w = try World()
        #expect(try w.add("dot", redirect: Self.scheme).status == 0)
        let login = try w.desktop.signIn(
            "dot", at: w.provider,
            alter: {
                $0.replacingOccurrences(of: "iss=http%3A%2F%2F127.0.0.1%3A", with: "iss=http%3A%2F%2F127.0.0.2%3A")
            })
        #expect(login.status != 0 && login.errorText.contains("iss"), "\(login.status) \(login.errorText)")
        #expect(try w.keyring.items(account: "dot") == (unlocked: 0, locked: 0))
        #expect(try w.desktop.linkctl("token", "dot").status == 4)
        #expect(w.daemon.isRunning)
    }

    @Test(
        "a device login (RFC 8628), where the provider has the grant but its metadata does not list it: refused until the account names the endpoint; then approved on the phone, the tokens kept (this provider sends no ID token with it)"
    )
    func device() throws {
        let w = try World()
        let endpoint = try #require(w.provider.info["device_authorization_endpoint"] as? String)
        let client = try #require(w.provider.info["device_client_id"] as? String)
        #expect(
            try w.desktop.linkctl(["account", "add", "bare", "--issuer", w.provider.issuer, "--client-id", client])
                .status == 0)
        let refused = try w.desktop.linkctl("login", "bare", "--device")
        #expect(
            refused.status == 1 && refused.errorText.contains("offers no device login")
                && refused.errorText.contains("device_authorization_endpoint"), "\(refused.errorText)")
        let added = try w.desktop.linkctl([
            "account", "add", "cli", "--issuer", w.provider.issuer, "--client-id", client,
            "--device-authorization-endpoint", endpoint,
        ])
        #expect(added.status == 0, "\(added.errorText)")
        let login = try DeviceLoginEndToEndTests.start(w.desktop, ["login", "cli", "--device", "--timeout", "60000"])
        let shown = try #require(DeviceLoginEndToEndTests.shown(login), "no code shown: \(login.errorText)")
        #expect(
            shown.page == w.provider.issuer + "/device/" && !login.errorText.contains("(or open"),
            "no verification_uri_complete here: \(login.errorText)")
        let approval = try DeviceLoginEndToEndTests.approve(
            w.desktop, at: w.provider, page: shown.page, code: shown.code)
        #expect(approval.status == 0 && approval.text == "accepted\n", "\(approval.errorText)")
        #expect(Subprocess.wait(login.pid, timeoutMilliseconds: 60_000) == 0, "\(login.errorText)")
        #expect(eventually(timeoutMilliseconds: 10_000) { (try? w.keyring.items(account: "cli")) ?? (0, 0) == (1, 0) })
        #expect(!(try w.token("cli")).isEmpty)
    }

    @Test(
        "sign-out revokes at the provider through the account's revocation_endpoint (its metadata lists none): the provider's own record shows the refresh token revoked when linkctl says so; without it, nothing is revoked, and linkctl says the token stays valid there"
    )
    func revocation() throws {
        let w = try World()
        let endpoint = try #require(w.provider.info["revocation_endpoint"] as? String)
        let db = try #require(w.provider.info["db"] as? String)
        func revoked() -> Int {
            Int(
                ((try? w.desktop.run([
                    "sqlite3", db, "SELECT count(*) FROM oauth2_provider_refreshtoken WHERE revoked IS NOT NULL",
                ]))?.text ?? "").filter(\.isNumber)) ?? -1
        }
        for (name, extra) in [("plain", [String]()), ("revoking", ["--revocation-endpoint", endpoint])] {
            #expect(try w.add(name, redirect: Self.scheme, extra).status == 0)
            let login = try w.desktop.signIn(name, at: w.provider)
            #expect(login.status == 0, "\(login.errorText)")
        }
        let plain = try w.desktop.linkctl("logout", "plain")
        #expect(plain.status == 0 && plain.errorText.contains("offers no revocation"), "\(plain.errorText)")
        #expect(revoked() == 0)
        let revoking = try w.desktop.linkctl("logout", "revoking")
        #expect(
            revoking.status == 0 && revoking.errorText.contains("its refresh token was revoked at the provider"),
            "\(revoking.errorText)")
        // Said once the provider took it: its own record shows it at the answer.
        #expect(revoked() == 1, "revoked refresh tokens: \(revoked()); \(w.daemon.log.suffix(600))")
        #expect(try w.keyring.items(account: "revoking") == (unlocked: 0, locked: 0))
    }

    @Test(
        "refusals: an unregistered redirect never comes back (the login times out and says so); a wrong issuer is DiscoveryFailed, naming the URL tried; no client id at a provider with no registration endpoint names --client-id"
    )
    func refusals() throws {
        let w = try World()
        #expect(try w.add("elsewhere", redirect: "com.example.app:/other").status == 0)
        let r = try w.desktop.linkctl(
            ["login", "elsewhere", "--no-browser", "--timeout", "5000"], timeoutMilliseconds: 30_000)
        // The provider refuses the authorize request itself (400 to the browser, no redirect): nothing can
        // reach linkrouter, so the login can only time out, and says so.
        #expect(r.status == 3 && r.errorText.contains("(Timeout)"), "\(r.status) \(r.errorText)")
        let wrong = try w.desktop.linkctl([
            "account", "add", "wrong", "--issuer", w.provider.issuer + "x", "--client-id", w.provider.clientID,
        ])
        #expect(wrong.status == 0)
        let refused = try w.desktop.linkctl(
            ["login", "wrong", "--no-browser", "--timeout", "5000"], timeoutMilliseconds: 30_000)
        #expect(
            refused.status == 1 && refused.errorText.contains("(DiscoveryFailed)")
                && refused.errorText.contains("answered HTTP 404") && !refused.errorText.contains("/authorize"),
            "\(refused.status) \(refused.errorText)")
        #expect(w.daemon.isRunning)
        // No --client-id: its OpenID metadata names no registration endpoint (RFC 7591), so nothing can be registered;
        // the refusal says how to register one by hand and which flag takes it, and nothing is declared.
        let unregistered = try w.desktop.linkctl(["account", "add", "mine", "--issuer", w.provider.issuer])
        #expect(
            unregistered.status == 1 && unregistered.errorText.contains("(RegistrationFailed)")
                && unregistered.errorText.contains("registration_endpoint")
                && unregistered.errorText.contains("--client-id ID"), "\(unregistered.errorText)")
        #expect(FileSystem.status(w.desktop.configHome + "/linkrouter/accounts/mine.conf") == nil)
        #expect(w.daemon.isRunning)
    }

    @Test(
        "DPoP at a provider that has none: by default no proof is sent and the tokens are bearer tokens; with dpop=require the answer (token_type Bearer) is refused and nothing is kept"
    )
    func dpopUnoffered() throws {
        let w = try World()
        #expect(try w.add("dot", redirect: Self.scheme).status == 0)
        #expect(try w.desktop.signIn("dot", at: w.provider).status == 0)
        #expect(try w.desktop.linkctl("token", "dot", "--json").text.contains("\"token_type\":\"Bearer\""))
        let plain = try w.desktop.linkctl("token", "dot", "--dpop", "GET", "https://api.example/")
        #expect(plain.status == 1 && plain.errorText.contains("NoDPoPKey"), "\(plain.errorText)")
        #expect(try w.add("strict", redirect: Self.scheme, ["--dpop", "require"]).status == 0)
        let strict = try w.desktop.signIn("strict", at: w.provider)
        #expect(
            strict.status == 2 && strict.errorText.contains("not DPoP, although the account requires DPoP"),
            "\(strict.status) \(strict.errorText)")
        let token = try w.desktop.linkctl("token", "strict")
        #expect(token.status == 4, "\(token.status) \(token.errorText)")
        #expect((try? w.keyring.items(account: "strict")) ?? (1, 0) == (0, 0))
        #expect(w.daemon.isRunning)
    }

    @Test(
        "a narrower token at django-oauth-toolkit, which narrows a refresh: --scope openid carries exactly openid while the account's own carries all; asked again, from memory; a scope beyond the account's, a malformed resource and an unknown issuer each a clear error with nothing spent; its rotated refresh token is the account's (one chain, across a restart)"
    )
    func narrowerScope() throws {
        let w = try World()
        #expect(try w.add("dot", redirect: Self.scheme, ["--scope", "openid profile email"]).status == 0)
        #expect(try w.desktop.signIn("dot", at: w.provider).status == 0)
        func json(_ args: String...) throws -> [String: Any] {
            let r = try w.desktop.linkctl(["token", "dot", "--json"] + args)
            #expect(r.status == 0, "\(args) \(r.errorText)")
            return (try? JSONSerialization.jsonObject(with: Data(r.text.utf8)) as? [String: Any]) ?? [:]
        }
        let own = try json()
        #expect(Set((own["scope"] as? String ?? "").split(separator: " ")) == ["openid", "profile", "email"], "\(own)")
        let client = try BusClient(w.bus.address)
        let before = try client.counter("token_refreshes")
        let narrow = try json("--scope", "openid")
        #expect(
            narrow["scope"] as? String == "openid" && narrow["token"] as? String != own["token"] as? String, "\(narrow)"
        )
        #expect(try client.counter("token_refreshes") == before + 1)
        #expect(try json("--scope", "openid")["token"] as? String == narrow["token"] as? String)
        #expect(try client.counter("token_refreshes") == before + 1, "asked again: from memory")
        #expect(try json()["token"] as? String == own["token"] as? String, "the account's own is untouched")
        // Bad input through linkctl: each a clear error, nothing asked of the provider, the daemon up.
        let spent = try client.counter("token_refreshes")
        for (args, says) in [
            (["dot", "--scope", "openid admin"], "scope admin is not within dot's"),
            (["dot", "--resource", "not a uri"], "resource"),
            (["dot", "--resource", "https://api.example.com/#fragment"], "resource"),
            (["--issuer", "https://unknown.example/"], "https://unknown.example/"),
        ] {
            let r = try w.desktop.linkctl(["token"] + args)
            #expect(
                r.status != 0 && r.text.isEmpty && r.errorText.contains(says), "\(args): \(r.status) \(r.errorText)")
        }
        #expect(try client.counter("token_refreshes") == spent, "nothing was spent on bad input")
        #expect(try json("--scope", "openid")["token"] as? String == narrow["token"] as? String, "the daemon is up")
        // django-oauth-toolkit rotated the refresh token with reuse protection: the account's own refresh uses the new
        // one (the old one would revoke the family), here and after a restart.
        func refreshOwn() throws -> Subprocess.Outcome {
            let current = try w.token("dot")
            return try w.desktop.run([
                "/bin/sh", "-c",
                "printf 'password=%s\\n' \"$1\" | \"$0\" credential git --account dot erase && \"$0\" token dot",
                Paths.linkctl, current,
            ])
        }
        let refreshed = try refreshOwn()
        #expect(
            refreshed.status == 0 && !refreshed.text.contains(own["token"] as? String ?? "-"), "\(refreshed.errorText)")
        _ = w.daemon.stop()
        w.daemon = try DaemonProcess(desktop: w.desktop)
        let again = try refreshOwn()
        #expect(again.status == 0, "\(again.errorText)")
    }
}

extension SecondProviderTests {
    @Test(
        "a token --for a resource (RFC 9728) that lists fewer scopes than the account holds is asked for those and the resource: scope openid, resource the URL, the account's own keeping openid email; django-oauth-toolkit then binds the rotated refresh token to that resource, so a token for another resource is refused (invalid_target): TokenExchangeFailed, the sign-in kept, never a sign-out"
    )
    func resourceScopes() throws {
        let w = try World()
        #expect(try w.add("dot", redirect: Self.loopback, ["--scope", "openid email"]).status == 0)
        #expect(try w.desktop.signIn("dot", at: w.provider).status == 0)
        func token(_ args: String...) throws -> (Subprocess.Outcome, [String: Any]) {
            let r = try w.desktop.linkctl(["token", "--json"] + args)
            return (r, (try? JSONSerialization.jsonObject(with: Data(r.text.utf8)) as? [String: Any]) ?? [:])
        }
        let (_, own) = try token("dot")
        #expect(own["scope"] as? String == "openid email", "\(own)")

        let small = try ProtectedResourceStandIn(desktop: w.desktop, provider: w.provider, name: "small")
        try small.set("openid-only")
        let (r, narrow) = try token("--for", small.url)
        #expect(
            r.status == 0 && narrow["scope"] as? String == "openid" && narrow["resource"] as? [String] == [small.url]
                && narrow["token"] as? String != own["token"] as? String, "\(narrow) \(r.errorText)")

        // The refresh token django-oauth-toolkit rotated into that answer is for `small` alone (its
        // validate_refresh_token_resource): another resource is refused by the provider, and only that token is.
        let whole = try ProtectedResourceStandIn(desktop: w.desktop, provider: w.provider, name: "whole")
        let (refused, _) = try token("--for", whole.url)
        #expect(
            refused.status == 2 && refused.errorText.contains("invalid_target")
                && refused.errorText.contains("the sign-in is kept"), "\(refused.errorText)")
        let (kept, after) = try token("dot")
        #expect(kept.status == 0 && after["token"] as? String == own["token"] as? String, "\(kept.errorText)")
        let listed = try w.desktop.linkctl("accounts", "--json")
        #expect(listed.text.contains("\"signed_in\":true"), "\(listed.text)")
        #expect(w.daemon.isRunning)
    }
}
