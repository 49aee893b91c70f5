import DBusKit
import Glibc
import LinkRouterAPI
import LinkRouterCore
import OpenSSLKit
import SystemKit
import Testing

/// Threat model, "State and session" (S1–S9).
@Suite("Threat model S: state and session")
struct StateThreatTests {
    @Test("S1: an unknown state is refused, nothing changes, and a flood of them logs a summary, not a line each")
    func s1() throws {
        // The route flood limit above the burst: this is about the refusals' log, not about X1.
        let h = try Harness(daemonArguments: ["--max-routes-per-second", "1000"])
        let (path, _) = try h.app.beginQuiet()
        try h.expectRefusal(errorPrefix + "UnknownState") {
            _ = try h.app.route("com.example.app:/callback?code=C&state=forged-by-a-page")
        }
        // A flood, all waiting at once: each is refused, and the log writes at most its cap a
        // second; the rest are counted, not written.
        let answers = try h.app.burst(
            "Route", (0..<100).map { [.string("com.example.app:/callback?code=C&state=flood\($0)")] })
        #expect(answers.allSatisfy { $0 == errorPrefix + "UnknownState" }, "\(Set(answers.map { $0 ?? "ok" }))")
        #expect(try h.app.counter("links_refused") == 101)
        #expect(try h.app.counter("log_lines_suppressed") > 0)
        #expect(try h.app.status(path) == "pending")
    }

    @Test("S2: a replay is refused, after a restart too; the first result is unaffected")
    func s2() throws {
        let h = try Harness()
        let (path, url) = try h.app.beginQuiet()
        let link = "com.example.app:/callback?code=first&state=\(Harness.state(of: url))"
        #expect(try h.app.route(link) == "completed")
        try h.expectRefusal(errorPrefix + "Replayed") { _ = try h.app.route(link) }
        h.daemon.stop(signal: SIGKILL)
        try h.restartDaemon()
        try h.expectRefusal(errorPrefix + "Replayed") { _ = try h.app.route(link) }
        #expect(try h.app.wait(path)["code"] == "first")
    }

    @Test(
        "S3: app A's state on app B's callback, or on another session's loopback port, is refused and never delivered to B"
    )
    func s3() throws {
        let h = try Harness()
        #expect(try h.desktop.linkctl("register", "com.other.app").status == 0)
        let b = try h.client()
        let (pa, ua) = try h.app.beginQuiet(redirect: "com.example.app:/callback")
        let (pb, _) = try b.beginQuiet(redirect: "com.other.app:/callback")
        try h.expectRefusal(errorPrefix + "CallbackMismatch") {
            _ = try h.app.route("com.other.app:/callback?code=C&state=\(Harness.state(of: ua))")
        }
        #expect(try h.app.status(pa) == "pending" && b.status(pb) == "pending")
        // Flagged, and on session A: the refusal's line names A's session and the error code (the
        // code is the API's error name, not wording).
        let tagA = "session " + String(pa.split(separator: "/").last!.prefix(8))
        let flagged = h.daemon.log.split(separator: "\n").filter {
            $0.contains(tagA) && $0.contains("CallbackMismatch")
        }
        #expect(flagged.count == 1, "\(h.daemon.log)")
        // On another session's loopback port.
        let (_, u1) = try h.app.beginQuiet(redirect: "http://127.0.0.1/cb")
        let (pl2, u2) = try h.app.beginQuiet(redirect: "http://127.0.0.1/cb")
        let r1 = try PercentEncoding.decode(Substring(u1.queryValue("redirect_uri")!), form: true)
        let r = try h.desktop.run([
            "curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", r1 + "?code=C&state=\(Harness.state(of: u2))",
        ])
        #expect(r.text == "400")
        #expect(try h.app.status(pl2) == "pending")
    }

    @Test(
        "S4: an iss that differs, even by normalisation, fails the session without the code; encoded and raw spellings decode alike"
    )
    func s4() throws {
        let h = try Harness()
        for bad in ["https%3A%2F%2Fevil.example", "https%3A%2F%2Fas.example%2F", "https://AS.example"] {
            let (path, url) = try h.app.beginQuiet(extra: [("issuer", .string("https://as.example"))])
            #expect(
                try h.app.route("com.example.app:/callback?code=C&state=\(Harness.state(of: url))&iss=\(bad)")
                    == "failed")
            let e = try #require(dbusError { _ = try h.app.wait(path) })
            #expect(e.name == errorPrefix + "IssuerMismatch" && !e.message.contains("C&"))
        }
        // Decoded once, then compared: the encoded and the raw spelling of the same issuer both match.
        for good in ["https%3A%2F%2Fas.example%2Ftenant", "https://as.example/tenant"] {
            let (p, u) = try h.app.beginQuiet(extra: [("issuer", .string("https://as.example/tenant"))])
            #expect(
                try h.app.route("com.example.app:/callback?code=C&state=\(Harness.state(of: u))&iss=\(good)")
                    == "completed")
            #expect(try h.app.wait(p)["iss"] == "https://as.example/tenant")
        }
        // An issuer is a URL: one with a space cannot be registered, so `+` versus `%20` never decides a match.
        try h.expectRefusal(errorPrefix + "InvalidArgument") {
            _ = try h.app.beginQuiet(extra: [("issuer", .string("https://as.example/a b"))])
        }
    }

    @Test("S5: an absent iss fails the session when the session requires it")
    func s5() throws {
        let h = try Harness()
        let (path, url) = try h.app.beginQuiet(extra: [
            ("issuer", .string("https://as.example")), ("require_iss", .boolean(true)),
        ])
        #expect(try h.app.route("com.example.app:/callback?code=C&state=\(Harness.state(of: url))") == "failed")
        #expect(errorName { _ = try h.app.wait(path) } == errorPrefix + "IssuerMismatch")
    }

    @Test(
        "S6: an error response fails the session; error within the OAuth charset, the description checked, error_uri never opened"
    )
    func s6() throws {
        let h = try Harness()
        let (path, url) = try h.app.beginQuiet()
        let q =
            "error=access_denied&error_description=%3Cscript%3Ealert(1)%3C%2Fscript%3E&error_uri=javascript%3Aalert(1)&state=\(Harness.state(of: url))"
        #expect(try h.app.route("com.example.app:/callback?" + q) == "failed")
        let e = try #require(dbusError { _ = try h.app.wait(path) })
        #expect(e.name == errorPrefix + "AuthorizationFailed" && e.message.contains("access_denied"))
        // The description is text within the OAuth charset, passed as a D-Bus string (never HTML); error_uri is
        // dropped.
        #expect(e.message.contains("<script>alert(1)</script>") && !e.message.contains("javascript"))
        let (p3, u3) = try h.app.beginQuiet()
        #expect(
            try h.app.route(
                "com.example.app:/callback?error=access_denied&error_description=%E2%80%AEevil%22&state=\(Harness.state(of: u3))"
            ) == "failed")
        let e3 = try #require(dbusError { _ = try h.app.wait(p3) })
        #expect(e3.message.contains("access_denied") && !e3.message.contains("evil"))
        let (p2, u2) = try h.app.beginQuiet()
        #expect(
            try h.app.route("com.example.app:/callback?error=%22quoted%22&state=\(Harness.state(of: u2))") == "failed")
        #expect(dbusError { _ = try h.app.wait(p2) }?.message.contains("invalid_response") == true)
        #expect(try h.app.counter("browsers_started") == 0, "error_uri is never opened")
        #expect(h.desktop.invocations(Harness.browser).isEmpty)
    }

    @Test("S7: a callback after the ttl is refused as expired and the client is told")
    func s7() throws {
        let h = try Harness()
        let (path, url) = try h.app.beginQuiet(extra: [("ttl", .uint32(1))])
        #expect(errorName { _ = try h.app.wait(path, timeoutMilliseconds: 4000) } == errorPrefix + "Expired")
        try h.expectRefusal(errorPrefix + "Expired") {
            _ = try h.app.route("com.example.app:/callback?code=C&state=\(Harness.state(of: url))")
        }
    }

    @Test(
        "S8: states, nonces, challenges and verifiers are 256-bit base64url, all different; RFC 7636 Appendix B holds")
    func s8() throws {
        let h = try Harness(daemonArguments: ["--max-pending-per-client", "300"])
        var seen = Set<String>()
        for _ in 0..<200 {
            let (_, url) = try h.app.beginQuiet()
            for k in ["state", "nonce", "code_challenge"] {
                let v = try #require(url.queryValue(k))
                #expect(v.count == 43 && Base64URL.isEncoded(v), "\(k)")
                #expect(seen.insert(v).inserted, "a repeated \(k)")
            }
            #expect(url.queryValue("code_challenge_method") == "S256")
        }
        // The verifiers themselves, from the owner's Wait: 32 random octets, 43 base64url characters, each the preimage
        // of its challenge.
        for _ in 0..<20 {
            let (path, url) = try h.app.beginQuiet()
            #expect(try h.app.route("com.example.app:/callback?code=c&state=\(Harness.state(of: url))") == "completed")
            let verifier = try #require(try h.app.wait(path)["code_verifier"])
            #expect(verifier.count == 43 && Base64URL.isEncoded(verifier) && seen.insert(verifier).inserted)
            #expect(try SecretFactory.challenge(for: verifier) == url.queryValue("code_challenge"))
        }
        #expect(
            try SecretFactory.challenge(for: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
                == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    }

    @Test(
        "S9: plain PKCE is never sent nor adopted, nor implied; an adopted URL without PKCE is logged; an error answer to S256 fails the session"
    )
    func s9() throws {
        let h = try Harness()
        let (path, url) = try h.app.beginQuiet()
        #expect(url.queryValue("code_challenge_method") == "S256" && !url.contains("plain"))
        // Adopted: plain named, or implied by a challenge with no method (RFC 7636 §4.3), is refused.
        for pkce in ["&code_challenge=x&code_challenge_method=plain", "&code_challenge=x"] {
            try h.expectRefusal(errorPrefix + "InvalidArgument") {
                _ = try h.app.begin([
                    (
                        "authorize_url",
                        .string(
                            "https://as.example/a?response_type=code&redirect_uri=com.example.app%3A%2Fcallback&state=abcdefghijklmnopq"
                                + pkce)
                    ),
                    ("open_browser", .boolean(false)),
                ])
            }
        }
        // An adopted URL with no PKCE at all (a backend that redeems the code with its client secret) rests on state
        // alone, and the log says so.
        _ = try h.app.begin([
            (
                "authorize_url",
                .string(
                    "https://as.example/a?response_type=code&redirect_uri=com.example.app%3A%2Fcallback&state=no-pkce-0123456789"
                )
            ),
            ("open_browser", .boolean(false)),
        ])
        #expect(eventually { h.daemon.log.contains("carries no PKCE, so the session rests on state alone") })
        #expect(
            try h.app.route(
                "com.example.app:/callback?error=invalid_request&error_description=PKCE%20not%20supported&state=\(Harness.state(of: url))"
            ) == "failed")
        #expect(errorName { _ = try h.app.wait(path) } == errorPrefix + "AuthorizationFailed")
    }
}
