import DBusKit
import Foundation
import Glibc
import LinkRouterAPI
import SystemKit
import Testing

/// A provider that lies, one lie at a time (issue 16): Glewlwyd behind a
/// proxy that breaks the ID token (its signature, `aud`, `nonce`, `exp`,
/// `iat`, `iss`, `alg`, `kid`), the metadata, or the token endpoint's answer.
/// Each fails the session with its own reason and no token is handed out;
/// a stalled token endpoint holds up no one else; the daemon stays up.
@Suite(
    "A provider that lies (Glewlwyd behind a tampering proxy)", .serialized,
    .enabled(if: OpenIDWorld.unavailable == nil, "\(OpenIDWorld.unavailable ?? "")"))
struct TamperedProviderTests {
    struct World {
        let h: Harness
        let provider: Glewlwyd
        let proxy: TamperProxy

        init() throws {
            h = try Harness(browser: false)
            proxy = try TamperProxy(desktop: h.desktop)
            provider = try Glewlwyd(
                desktop: h.desktop, redirectURIs: ["com.example.app:/callback"], publicOrigin: proxy.origin)
            try proxy.connect(upstream: try #require(provider.directOrigin))
        }

        var options: [(String, DBusValue)] {
            [
                ("issuer", .string(provider.issuer)), ("client_id", .string(provider.clientID)),
                ("redirect_uri", .string("com.example.app:/callback")),
                ("scope", .string("openid email")), ("exchange", .boolean(true)), ("open_browser", .boolean(false)),
            ]
        }

        /// One whole login under `mode`: begin, sign in at Glewlwyd (through the proxy), the
        /// redirect through xdg-open, then `Wait`. Its result, or its error.
        func login(_ mode: String) throws -> (path: String, result: [String: String]?, error: DBusError?) {
            try proxy.set(mode)
            let (path, url) = try h.app.begin(options)
            let location = try OpenIDWorld(h: h, provider: provider).signIn(url)
            let opened = try h.desktop.xdgOpen(location)
            guard opened.status == 0 else { throw SystemError("xdg-open: \(opened.errorText)", code: EINVAL) }
            do { return (path, try h.app.wait(path, timeoutMilliseconds: 30_000), nil) } catch {
                return (path, nil, error)
            }
        }
    }

    @Test(
        "each lie in the token answer fails the session with its own reason; no token is handed out; honest answers (and a key rotated in) still pass"
    )
    func tokenLies() throws {
        let w = try World()
        // First, with no keys cached: the token's kid is not in the first key set; the one refetch finds it.
        let rotated = try w.login("rotate-kid")
        #expect(rotated.result?["access_token"] != nil, "\(String(describing: rotated.error))")
        #expect(
            w.proxy.requests().filter { ($0["path"] as? String)?.hasSuffix("/jwks") == true }.count == 2,
            "one refetch for the new kid")

        let honest = try w.login("resign-honest")
        #expect(
            honest.result?["access_token"] != nil && honest.result?["sub"] != nil,
            "the proxy's own signing is sound: \(String(describing: honest.error))")

        let lies: [(mode: String, error: String, says: String)] = [
            ("flip-signature", "IDTokenRejected", "signature does not verify"),
            ("swap-aud", "IDTokenRejected", "not for this client"),
            ("change-nonce", "IDTokenRejected", "another nonce"),
            ("expired", "IDTokenRejected", "expired"),
            ("future-iat", "IDTokenRejected", "in the future"),
            ("wrong-iss", "IDTokenRejected", "was issued by"),
            ("alg-none", "IDTokenRejected", "unsigned"),
            ("hs256", "IDTokenRejected", "shared-secret"),
            ("unknown-kid", "IDTokenRejected", "UnknownKeyID"),
            ("token-error", "TokenExchangeFailed", "invalid_grant"),
            ("huge-token-response", "TokenExchangeFailed", "failed"),
            ("html-token-response", "TokenExchangeFailed", "text/html"),
        ]
        for lie in lies {
            let r = try w.login(lie.mode)
            #expect(r.result == nil, "\(lie.mode): tokens were handed out: \(r.result ?? [:])")
            #expect(
                r.error?.name == errorPrefix + lie.error && r.error?.message.contains(lie.says) == true,
                "\(lie.mode): \(r.error?.description ?? "no error")")
            #expect(r.error?.message.contains("eyJ") == false, "\(lie.mode): no token in the message")
            #expect(try w.h.app.status(r.path) == "failed", "\(lie.mode)")
        }
        #expect(w.h.daemonAnswers)
        // And after all that, an honest login still works.
        #expect(try w.login("honest").result?["access_token"] != nil)
    }

    @Test("metadata that lies is refused at BeginSession: another issuer, no S256; nothing is begun")
    func metadataLies() throws {
        // One daemon per lie: a good document would be cached.
        for (mode, says) in [("issuer-mismatch", "identical"), ("no-s256", "without S256")] {
            let w = try World()
            try w.proxy.set(mode)
            let message = try w.h.expectRefusal(errorPrefix + "DiscoveryFailed") { _ = try w.h.app.begin(w.options) }
            #expect(message.contains(says), "\(mode): \(message)")
            #expect(try w.h.app.allSessions().isEmpty)
        }
    }

    @Test(
        "a token endpoint that stalls holds up only its own session: other links route and other owners get their results meanwhile"
    )
    func stalledTokenEndpoint() throws {
        let w = try World()
        try w.proxy.set("stall-token")
        let (stalled, url) = try w.h.app.begin(w.options)
        let location = try OpenIDWorld(h: w.h, provider: w.provider).signIn(url)
        #expect(try w.h.app.route(location) == "completed")
        #expect(
            eventually {
                w.proxy.requests().contains {
                    $0["mode"] as? String == "stall-token" && ($0["path"] as? String)?.hasSuffix("/token") == true
                }
            },
            "the token request reached the stalling endpoint")
        // Meanwhile: another app's login completes, and the stalled one is still exchanging.
        let other = try w.h.client()
        let (path, otherURL) = try other.beginQuiet()
        #expect(
            try other.route("com.example.app:/callback?code=c2&state=\(Harness.state(of: otherURL))") == "completed")
        #expect(try other.wait(path)["code"] == "c2")
        #expect(try w.h.app.status(stalled) == "exchanging")
        _ = try w.h.app.call("Cancel", path: stalled, interface: API.sessionInterface.rawValue)
        #expect(try w.h.app.status(stalled) == "cancelled")
    }
}

extension TamperedProviderTests {
    @Test(
        "a token endpoint that stalls holds at most 48 requests from callers with no account (16 of the 64 are kept for accounts): the next RefreshTokens is refused at once with LimitsExceeded; logins still complete"
    )
    func inFlightCap() throws {
        let w = try World()
        // The issuer's metadata cached (Glewlwyd says no-store; the proxy lets it be kept), so a
        // refresh goes straight to the token endpoint; then every token request stalls.
        try w.proxy.set("cacheable-metadata")
        _ = try w.h.app.begin(w.options)
        #expect(w.proxy.requests().contains { ($0["tampered"] as? String)?.contains("max-age=300") == true })
        try w.proxy.set("stall-token")
        func refresh(_ n: Int) -> [DBusValue] {
            [
                .vardict([
                    ("issuer", .string(w.provider.issuer)), ("client_id", .string(w.provider.clientID)),
                    ("refresh_token", .string("stalled-\(n)")),
                ])
            ]
        }
        // 48 refreshes sent without waiting for their answers, all held at the stalled endpoint: the callers' share of
        // the 64 requests in flight (16 are kept for accounts' refreshes and revocations).
        let flood = try w.h.client()
        for n in 0..<48 {
            let m = DBusMessage.methodCall(API.busName, API.managerPath, API.managerInterface, "RefreshTokens")
            try m.append(contentsOf: refresh(n))
            try flood.connection.send(m)
        }
        flood.connection.flush()
        #expect(
            eventually(timeoutMilliseconds: 30_000) {
                w.proxy.requests().filter {
                    $0["mode"] as? String == "stall-token" && ($0["path"] as? String)?.hasSuffix("/token") == true
                }.count == 48
            }, "48 refreshes reached the stalled token endpoint")
        // The 49th is refused now, with a reason, and nothing reaches the provider for it.
        // (Held behind the stall instead, it would end in NoReply after 10 s, not LimitsExceeded.)
        let refused = #expect(throws: DBusError.self) { _ = try w.h.app.call("RefreshTokens", refresh(48)) }
        #expect(
            refused?.name == API.errorPrefix + "LimitsExceeded"
                && refused?.message.contains("48 requests to providers") == true, "\(String(describing: refused))")
        #expect(
            w.proxy.requests().filter { ($0["path"] as? String)?.hasSuffix("/token") == true }.count == 48,
            "nothing more reached the provider")
        #expect(
            !w.proxy.requests().contains {
                ($0["path"] as? String)?.hasSuffix("/.well-known/openid-configuration") == true
                    && $0["mode"] as? String == "stall-token"
            },
            "the refreshes used the cached metadata")
        // Everything that needs no provider goes on: another app's login completes.
        let other = try w.h.client()
        let (path, url) = try other.beginQuiet()
        #expect(try other.route("com.example.app:/callback?code=c&state=\(Harness.state(of: url))") == "completed")
        #expect(try other.wait(path)["code"] == "c")
    }

    @Test(
        "kill -9 while the code is at the token endpoint: the restarted daemon exchanges it again and the owner gets the tokens; tokens collected before a restart are gone, and Wait says why"
    )
    func restartDuringExchange() throws {
        let w = try World()
        // The stall holds the code at the proxy; it never reaches Glewlwyd, so it is still good.
        try w.proxy.set("stall-token")
        let (path, url) = try w.h.app.begin(w.options)
        #expect(try w.h.app.route(try OpenIDWorld(h: w.h, provider: w.provider).signIn(url)) == "completed")
        #expect(eventually { w.proxy.requests().contains { ($0["path"] as? String)?.hasSuffix("/token") == true } })
        #expect(try w.h.app.status(path) == "exchanging")
        w.h.daemon.stop(signal: SIGKILL)
        try w.proxy.set("honest")
        try w.h.restartDaemon()
        // The app's connection never left the bus: it is still the owner.
        let result = try w.h.app.wait(path, timeoutMilliseconds: 30_000)
        #expect(result["access_token"] != nil && result["sub"] != nil, "\(result)")

        // Tokens live in memory only: a restart before they are acknowledged loses them, and says so.
        w.h.daemon.stop(signal: SIGKILL)
        try w.h.restartDaemon()
        let lost = dbusError { _ = try w.h.app.wait(path, timeoutMilliseconds: 5000) }
        #expect(
            lost?.name == errorPrefix + "TokenExchangeFailed"
                && lost?.message.contains("never written to disk") == true, "\(String(describing: lost))")
        #expect(try w.h.app.status(path) == "failed")
    }
}

extension OpenIDWorld {
    init(h: Harness, provider: Glewlwyd) {
        self.h = h
        self.provider = provider
    }
}
