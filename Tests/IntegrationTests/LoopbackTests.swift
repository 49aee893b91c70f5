import DBusKit
import Foundation
import LinkRouterAPI
import LinkRouterCore
import SystemKit
import Testing

/// Loopback redirects (RFC 8252 §7.3): the daemon's own listener, with real
/// clients: curl for every refusal, raw sockets for slow and odd clients.
@Suite("Loopback listener")
struct LoopbackTests {
    struct Listening {
        let path: String
        let redirect: String
        let state: String
        let port: Int
        /// `http://host:port`, the redirect URI without its path.
        var base: String { String(redirect.dropLast("/callback".count)) }
    }

    func begin(_ h: Harness, _ redirect: String = "http://127.0.0.1/callback", client: BusClient? = nil) throws
        -> Listening
    {
        let (path, url) = try (client ?? h.app).beginQuiet(redirect: redirect)
        let redirectURI = try PercentEncoding.decode(Substring(url.queryValue("redirect_uri")!), form: true)
        let port = Int(redirectURI.split(separator: ":").last!.split(separator: "/").first!)!
        return Listening(path: path, redirect: redirectURI, state: Harness.state(of: url), port: port)
    }

    /// curl's status code for a request (`-g` so brackets in IPv6 URLs are literal).
    func curl(_ d: TestDesktop, _ args: [String]) throws -> (code: Int, headers: String, body: String) {
        let dir = d.root + "/curl-\(Clock.monotonicNanoseconds())"
        let r = try d.run(
            ["curl", "-sg", "--max-time", "5", "-D", dir + ".h", "-o", dir + ".b", "-w", "%{http_code}"] + args)
        return (
            Int(r.text) ?? 0, (try? FileSystem.readText(dir + ".h")) ?? "", (try? FileSystem.readText(dir + ".b")) ?? ""
        )
    }

    @Test(
        "linkctl login --redirect-uri http://127.0.0.1/callback: the listener is up before the browser, the result names the port"
    )
    func linkctlLogin() throws {
        let h = try Harness()
        let out = h.desktop.root + "/login.json"
        let pid = try Subprocess.spawn(
            [
                Paths.linkctl, "login", "--authorization-endpoint", "https://auth.example.com/authorize", "--client-id",
                "cli",
                "--redirect-uri", "http://127.0.0.1/callback", "--json",
            ],
            environment: h.desktop.environment, stdout: .file(out), stderr: .file(out + ".err"))
        let url = try #require(h.desktop.waitForBrowser(Harness.browser).first)
        let redirect = try PercentEncoding.decode(Substring(url.queryValue("redirect_uri")!), form: true)
        #expect(redirect.hasPrefix("http://127.0.0.1:") && redirect.hasSuffix("/callback"))
        // The browser is opened only once the listener answers; the provider redirects to it.
        let done = try curl(h.desktop, [redirect + "?code=loop-code&state=\(Harness.state(of: url))"])
        #expect(done.code == 200)
        #expect(done.body.contains("Signed in") && !done.body.contains("loop-code"))
        #expect(Subprocess.wait(pid, timeoutMilliseconds: 60_000) == 0)
        let json = try FileSystem.readText(out)
        #expect(json.jsonField("code") == "loop-code")
        #expect(json.jsonField("redirect_uri") == redirect)
    }

    @Test(
        "a provider's 302 to the listener, followed by a browser",
        arguments: ["http://127.0.0.1/callback", "http://[::1]/callback", "http://localhost/callback"])
    func providerRedirect(_ registered: String) throws {
        let h = try Harness(browser: false)
        let provider = try Provider(desktop: h.desktop)
        try h.desktop.addCookieBrowser("browser-a.desktop", cafile: provider.cafile, makeDefault: true)
        let (path, url) = try h.app.begin([
            ("authorization_endpoint", .string(provider.origin + "/authorize")), ("client_id", .string("c")),
            ("redirect_uri", .string(registered)),
        ])
        let redirect = try PercentEncoding.decode(Substring(url.queryValue("redirect_uri")!), form: true)
        // The provider gets the redirect URI as the app wrote it, with only the port filled in (issue 13 §3).
        if registered.contains("localhost") { #expect(redirect.hasPrefix("http://localhost:")) }
        if registered.contains("::1") { #expect(redirect.hasPrefix("http://[::1]:")) }
        _ = try #require(provider.waitForLogin())
        let hop =
            provider.origin + "/redirect-to?url="
            + PercentEncoding.encode(redirect + "?state=\(Harness.state(of: url))&code=via-302")
        let r = try h.desktop.run([
            "python3", Paths.fixtures + "/browser.py", "--name", "a", "--jar", h.desktop.root + "/a.cookies",
            "--log", h.desktop.root + "/browsers.jsonl", "--cafile", provider.cafile, hop,
        ])
        #expect(r.status == 0)
        let steps = h.desktop.browserSteps()
        #expect(steps.last?["url"] as? String == redirect + "?state=\(Harness.state(of: url))&code=via-302")
        #expect(steps.last?["status"] as? Int == 200)
        let result = try h.app.wait(path)
        #expect(result["code"] == "via-302" && result["redirect_uri"] == redirect)
    }

    @Test("bound to the loopback address only, and closed when the session ends (L4)")
    func binding() throws {
        let h = try Harness()
        let four = try begin(h)
        let six = try begin(h, "http://[::1]/callback")
        let ss = try h.desktop.run(["ss", "-Hltn"]).text
        // The local address column of every listening socket on either port.
        let local = ss.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true) }.filter {
            $0.count >= 4
        }.map { String($0[3]) }
            .filter { $0.hasSuffix(":\(four.port)") || $0.hasSuffix(":\(six.port)") }
        #expect(local.sorted() == ["127.0.0.1:\(four.port)", "[::1]:\(six.port)"].sorted(), "\(ss)")
        _ = try h.app.call("Cancel", path: four.path, interface: API.sessionInterface.rawValue)
        #expect(eventually { !RawSocket.isListening(port: four.port) })
        let e = try curl(h.desktop, ["http://127.0.0.1:\(four.port)/callback?code=c&state=\(four.state)"])
        #expect(e.code == 0)
        #expect(RawSocket.isListening(port: six.port, ipv6: true))
    }

    @Test(
        "localhost: the provider gets localhost; the listener answers on 127.0.0.1 and ::1 on one port; Host must be localhost:PORT (issue 13 §3)"
    )
    func localhost() throws {
        let h = try Harness()
        func session() throws -> Listening {
            let l = try begin(h, "http://localhost/callback")
            #expect(l.redirect == "http://localhost:\(l.port)/callback")
            return l
        }
        // Whatever /etc/hosts says, a browser may reach localhost over either family: force each.
        for family in ["127.0.0.1", "[::1]"] {
            let l = try session()
            let r = try curl(
                h.desktop,
                ["--resolve", "localhost:\(l.port):\(family)", "\(l.redirect)?code=via-\(family)&state=\(l.state)"])
            #expect(r.code == 200, "\(family)")
            #expect(try h.app.wait(l.path)["code"] == "via-\(family)")
        }
        // One port, both loopback addresses, nothing else.
        let l = try session()
        let listening = try h.desktop.run(["ss", "-Hltn", "sport = :\(l.port)"]).text
        #expect(listening.contains("127.0.0.1:\(l.port)") && listening.contains("[::1]:\(l.port)"), "\(listening)")
        #expect(listening.split(separator: "\n").count == 2, "\(listening)")
        // The DNS-rebinding check stands for every other host, a loopback literal included.
        for host in ["127.0.0.1:\(l.port)", "[::1]:\(l.port)", "rebind.example:\(l.port)", "localhost:1"] {
            let r = try curl(
                h.desktop, ["-H", "Host: \(host)", "http://127.0.0.1:\(l.port)/callback?code=c&state=\(l.state)"])
            #expect(r.code == 400, "\(host)")
        }
        #expect(try h.app.status(l.path) == "pending")
    }

    @Test(
        "every refusal, with its status code; the session untouched; the real callback still works (L1, L2, L3, L5, L6)"
    )
    func refusals() throws {
        let h = try Harness()
        let other = try begin(h)
        let l = try begin(h)
        let good = "\(l.base)/callback?code=c&state=\(l.state)"
        let cases: [(String, [String], Int)] = [
            ("other path", ["\(l.base)/"], 404),
            ("favicon", ["\(l.base)/favicon.ico"], 404),
            ("trailing slash", ["\(l.base)/callback/?code=c&state=\(l.state)"], 404),
            ("doubled slash", ["--path-as-is", "\(l.base)//callback?code=c&state=\(l.state)"], 404),
            ("POST", ["-X", "POST", "-d", "code=c&state=\(l.state)", good], 405),
            (
                "OPTIONS preflight",
                [
                    "-X", "OPTIONS", "-H", "Origin: https://evil.example", "-H", "Access-Control-Request-Method: GET",
                    good,
                ], 405
            ),
            ("PUT", ["-X", "PUT", good], 405),
            ("unknown state", ["\(l.base)/callback?code=c&state=guess"], 400),
            ("another session's state", ["\(l.base)/callback?code=c&state=\(other.state)"], 400),
            ("no state", ["\(l.base)/callback?code=c"], 400),
            ("duplicate state", ["\(l.base)/callback?code=c&state=\(l.state)&state=\(l.state)"], 400),
            ("bad escape", ["\(l.base)/callback?code=%zz&state=\(l.state)"], 400),
            ("DNS rebinding", ["-H", "Host: rebind.evil.example:\(l.port)", good], 400),
            ("Host without port", ["-H", "Host: 127.0.0.1", good], 400),
            ("localhost Host for a 127.0.0.1 redirect", ["-H", "Host: localhost:\(l.port)", good], 400),
            ("missing Host", ["-H", "Host:", good], 400),
            ("image sub-resource", ["-H", "Sec-Fetch-Dest: image", good], 400),
            ("64 KiB header", ["-H", "X-Big: " + String(repeating: "a", count: 65536), good], 431),
        ]
        for (what, args, want) in cases {
            let r = try curl(h.desktop, args)
            #expect(r.code == want, "\(what): got \(r.code)")
            #expect(!r.headers.lowercased().contains("access-control-"), "\(what)")
            #expect(try h.app.status(l.path) == "pending", "\(what)")
        }
        // Absolute-form request target (a proxy request).
        let abs = try RawSocket(port: l.port)
        abs.send(
            "GET http://evil.example/callback?code=c&state=\(l.state) HTTP/1.1\r\nHost: 127.0.0.1:\(l.port)\r\n\r\n")
        #expect(abs.readAll().hasPrefix("HTTP/1.1 400"))
        #expect(try h.app.status(l.path) == "pending" && h.app.status(other.path) == "pending")
        #expect(h.daemonAnswers)
        let ok = try curl(h.desktop, [good])
        #expect(ok.code == 200)
        for header in [
            "cache-control: no-store", "referrer-policy: no-referrer", "content-security-policy: default-src 'none'",
            "connection: close",
        ] {
            #expect(ok.headers.lowercased().contains(header), "\(header)")
        }
        #expect(!ok.body.contains("<script") && !ok.body.contains("src=") && !ok.body.contains("href="))
        #expect(try h.app.wait(l.path)["code"] == "c")
        // A replay finds the listener closed (or, for an instant, answering 400).
        let replay = try curl(h.desktop, [good])
        #expect(replay.code == 0 || replay.code == 400)
        #expect(try h.app.status(other.path) == "pending")
    }

    @Test("a slow client holding half a request never delays the real callback; pipelining gets one answer (L5)")
    func slowClient() throws {
        let h = try Harness()
        let l = try begin(h)
        let slow = try (0..<5).map { _ in try RawSocket(port: l.port) }
        for s in slow {
            s.send("GET /callback?code=slow&state=\(l.state) HTTP/1.1\r\nHost: 127.0.0.1:\(l.port)\r\nX-Slow: ")
        }
        let pipelined = try RawSocket(port: l.port)
        pipelined.send(
            "GET /nothing HTTP/1.1\r\nHost: 127.0.0.1:\(l.port)\r\n\r\nGET /callback?code=sneaky&state=\(l.state) HTTP/1.1\r\nHost: 127.0.0.1:\(l.port)\r\n\r\n"
        )
        let answer = pipelined.readAll()
        #expect(answer.components(separatedBy: "HTTP/1.1 ").count - 1 == 1)
        #expect(answer.hasPrefix("HTTP/1.1 404"))
        #expect(try h.app.status(l.path) == "pending")
        // The slow connections are open and unanswered; curl gives up after 5 s,
        // well inside the listener's 10 s read timeout: an answer means the
        // callback did not wait for them.
        #expect(slow.allSatisfy { !$0.isClosedByPeer(timeoutMilliseconds: 0) })
        let r = try curl(h.desktop, ["\(l.base)/callback?code=real&state=\(l.state)"])
        #expect(r.code == 200)
        #expect(try h.app.wait(l.path)["code"] == "real")
        // The session is over, so the listener closed them all.
        #expect(eventually { slow.allSatisfy { $0.isClosedByPeer(timeoutMilliseconds: 0) } })
    }

    @Test("the read timeout closes a slow client (L5)")
    func readTimeout() throws {
        let h = try Harness()
        let l = try begin(h)
        let slow = try RawSocket(port: l.port)
        slow.send("GET /callback HTTP/1.1\r\n")
        #expect(slow.isClosedByPeer(timeoutMilliseconds: 15_000))
        #expect(try h.app.status(l.path) == "pending")
    }

    @Test("a provider error: the page says so in plain words and does not echo it; Wait says AuthorizationFailed")
    func errorPage() throws {
        let h = try Harness()
        let l = try begin(h)
        let r = try curl(
            h.desktop,
            [
                "\(l.base)/callback?error=access_denied&error_description=%3Cscript%3Ealert(1)%3C%2Fscript%3E&state=\(l.state)"
            ])
        #expect(r.code == 200)
        #expect(r.body.contains("The sign-in was declined."))
        #expect(!r.body.contains("script") && !r.body.contains("alert"))
        #expect(errorName { _ = try h.app.wait(l.path) } == errorPrefix + "AuthorizationFailed")
    }

    @Test("a fixed port that is taken is refused: ListenerFailed, no session (L4)")
    func portTaken() throws {
        let h = try Harness()
        let squatter = try begin(h)
        try h.expectRefusal(errorPrefix + "ListenerFailed") {
            _ = try h.app.beginQuiet(redirect: "http://127.0.0.1:\(squatter.port)/callback")
        }
    }

    @Test("one fixed port serves two logins in a row: the first one's closed connections (TIME_WAIT) do not hold it")
    func fixedPortTwice() throws {
        let h = try Harness()
        let first = try begin(h)
        #expect(try curl(h.desktop, ["\(first.redirect)?code=one&state=\(first.state)"]).code == 200)
        #expect(try h.app.wait(first.path)["code"] == "one")
        // The listener closes after its page; the connection it closed waits in TIME_WAIT on that port.
        #expect(eventually { (try? h.desktop.run(["ss", "-Hltn", "sport = :\(first.port)"]).text.isEmpty) == true })
        let again = try begin(h, "http://127.0.0.1:\(first.port)/callback")
        #expect(again.port == first.port)
        #expect(try curl(h.desktop, ["\(again.redirect)?code=two&state=\(again.state)"]).code == 200)
        #expect(try h.app.wait(again.path)["code"] == "two")
    }
}
