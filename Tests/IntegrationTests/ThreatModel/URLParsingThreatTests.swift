import DBusKit
import LinkRouterAPI
import LinkRouterCore
import SystemKit
import Testing

/// Threat model, "URL parsing" (U1–U10): every row against the real daemon.
/// Each refusal asserts the error name, that no session changed and nothing
/// was opened (`expectRefusal`), and that the daemon still answers.
@Suite("Threat model U: URL parsing")
struct URLParsingThreatTests {
    func world() throws -> (Harness, path: String, state: String) {
        let h = try Harness()
        let (path, url) = try h.app.beginQuiet(redirect: "com.example.app:/cb")
        return (h, path, Harness.state(of: url))
    }

    @Test("U1: duplicate or conflicting parameters are malformed; the session stays pending; the log says why")
    func u1() throws {
        let (h, path, s) = try world()
        for q in ["code=C&state=\(s)&state=S2", "code=A&code=B&state=\(s)", "code=C&error=x&state=\(s)"] {
            try h.expectRefusal(errorPrefix + "InvalidArgument") { _ = try h.app.route("com.example.app:/cb?" + q) }
        }
        #expect(try h.app.status(path) == "pending")
        #expect(h.daemon.log.contains("appears 2 times") && h.daemon.log.contains("both code and error"))
    }

    @Test("U2: an empty or missing state never matches")
    func u2() throws {
        let (h, path, _) = try world()
        try h.expectRefusal(errorPrefix + "InvalidArgument") {
            _ = try h.app.route("com.example.app:/cb?code=C&state=")
        }
        try h.expectRefusal(errorPrefix + "InvalidArgument") { _ = try h.app.route("com.example.app:/cb?code=C") }
        #expect(try h.app.status(path) == "pending")
    }

    @Test("U3: state near-misses (appended, prefix, case, trailing space, %20) do not match")
    func u3() throws {
        let (h, _, s) = try world()
        for v in [s + "1", String(s.dropLast(3)), s.uppercased(), s + "%20", s + "+", "%20" + s] {
            try h.expectRefusal(errorPrefix + "UnknownState") {
                _ = try h.app.route("com.example.app:/cb?code=C&state=" + v)
            }
        }
    }

    @Test("U4: invalid percent-encoding is refused, never read as empty")
    func u4() throws {
        let (h, _, s) = try world()
        for q in ["code=a%FF&state=\(s)", "code=%zz&state=\(s)", "code=C&state=%"] {
            try h.expectRefusal(errorPrefix + "InvalidArgument") { _ = try h.app.route("com.example.app:/cb?" + q) }
        }
    }

    @Test("U5: embedded NUL and controls are refused before parsing; raw controls never reach the bus")
    func u5() throws {
        let (h, _, s) = try world()
        for q in [
            "code=ab%00cd&state=\(s)", "code=a%0Ab&state=\(s)", "code=a\nb&state=\(s)", "code=a\tb&state=\(s)",
            "code=a b&state=\(s)",
        ] {
            try h.expectRefusal(errorPrefix + "InvalidArgument") { _ = try h.app.route("com.example.app:/cb?" + q) }
        }
        // linkctl refuses raw controls itself (exit 64), so no such string is ever sent over D-Bus:
        // the daemon counts every link that reaches it (the refusals above were counted), and none more.
        let counted = { try h.app.counter("links_routed") + h.app.counter("links_refused") }
        let before = try counted()
        #expect(before >= 5)
        let r = try h.desktop.linkctl("open", "--", "com.example.app:/cb?code=a\nb&state=\(s)")
        #expect(r.status == 64)
        #expect(try counted() == before)
    }

    @Test(
        "U6: oversize URLs, too many parameters and long values are refused with bounded work; the daemon keeps serving"
    )
    func u6() throws {
        let (h, path, s) = try world()
        try h.expectRefusal(errorPrefix + "LimitsExceeded") {
            _ = try h.app.route("com.example.app:/cb?state=\(s)&code=" + String(repeating: "a", count: 9000))
        }
        try h.expectRefusal(errorPrefix + "LimitsExceeded") {
            _ = try h.app.route(
                "com.example.app:/cb?" + (0..<40).map { "p\($0)=1" }.joined(separator: "&") + "&state=\(s)")
        }
        try h.expectRefusal(errorPrefix + "LimitsExceeded") {
            _ = try h.app.route("com.example.app:/cb?state=\(s)&code=" + String(repeating: "b", count: 2100))
        }
        #expect(
            try h.app.route("com.example.app:/cb?state=\(s)&code=" + String(repeating: "c", count: 2000)) == "completed"
        )
        #expect(try h.app.wait(path)["code"]?.count == 2000)
    }

    @Test("U7: the fragment is never read; a benign fragment is ignored")
    func u7() throws {
        let (h, path, s) = try world()
        try h.expectRefusal(errorPrefix + "InvalidArgument") {
            _ = try h.app.route("com.example.app:/cb?state=\(s)#code=EVIL")
        }
        try h.expectRefusal(errorPrefix + "InvalidArgument") {
            _ = try h.app.route("com.example.app:/cb#code=C&state=\(s)")
        }
        #expect(try h.app.route("com.example.app:/cb?code=good&state=\(s)#_=_") == "completed")
        #expect(try h.app.wait(path)["code"] == "good")
    }

    @Test("U8: received-on URI variants are not the redirect URI; the scheme compares without case")
    func u8() throws {
        let (h, path, s) = try world()
        for v in [
            "com.example.app:/cb/", "com.example.app:/CB", "com.example.app:/%63b", "com.example.app:/cb;x",
            "com.example.app://cb", "com.example.app:/./cb",
        ] {
            try h.expectRefusal(errorPrefix + "CallbackMismatch") { _ = try h.app.route(v + "?code=C&state=\(s)") }
        }
        #expect(try h.app.route("COM.EXAMPLE.APP:/cb?code=C&state=\(s)") == "completed")
        #expect(try h.app.wait(path)["code"] == "C")
    }

    @Test(
        "U9: claimed-https look-alikes are never matched; without the state they go to the browser, with it they are refused"
    )
    func u9() throws {
        let h = try Harness()
        let (path, url) = try h.app.beginQuiet(redirect: "https://example.com/cb")
        let s = Harness.state(of: url)
        for (i, v) in [
            "https://example.com@evil/cb", "https://example.com.evil/cb", "https://evil/example.com/cb",
            "https://xn--exmple-cua.com/cb",
            "https://example.com:443/cb", "http://example.com/cb",
        ].enumerated() {
            // Carrying the session's state: never forwarded (R5), refused as another URI.
            try h.expectRefusal(errorPrefix + "CallbackMismatch") { _ = try h.app.route(v + "?code=C&state=\(s)") }
            // An ordinary link: forwarded, byte for byte.
            #expect(try h.app.route(v + "?x=1") == "passthrough")
            // Settled before the next refusal compares the browser's invocations.
            #expect(h.desktop.waitForBrowser(Harness.browser, count: i + 1).last == v + "?x=1")
        }
        #expect(try h.app.status(path) == "pending")
    }

    @Test(
        "U10: linkctl takes exactly one absolute URL with a handled scheme; anything else exits non-zero without a D-Bus call"
    )
    func u10() throws {
        let d = try TestDesktop()
        d.extraEnvironment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=" + d.root + "/no-bus"
        for args in [
            ["open", "--", "--help"], ["open", "-x"], ["open", "--", "com.example.app:/a", "com.example.app:/b"],
            ["open", "--", "cb?code=1&state=2"],
            ["open", "--", "ftp://x/y"], ["open", "--", "file:///etc/passwd"],
        ] {
            let r = try d.linkctl(args)
            #expect(r.status == 64, "\(args)")
        }
        #expect(FileSystem.list(d.runtimeDir + "/linkrouter/inbox").isEmpty)
    }
}
