import DBusKit
import Glibc
import LinkRouterAPI
import LinkRouterCore
import SystemKit
import Testing

/// Threat model, "Loopback HTTP listener" (L1–L6).
@Suite("Threat model L: loopback listener")
struct LoopbackThreatTests {
    func listening(_ h: Harness) throws -> (path: String, base: String, port: Int, state: String) {
        let (path, url) = try h.app.beginQuiet(redirect: "http://127.0.0.1/cb")
        let redirect = try PercentEncoding.decode(Substring(url.queryValue("redirect_uri")!), form: true)
        let base = String(redirect.dropLast(3))
        return (path, base, Int(base.split(separator: ":").last!)!, Harness.state(of: url))
    }

    func code(_ h: Harness, _ args: [String]) throws -> String {
        try h.desktop.run(["curl", "-s", "-o", "/dev/null", "--max-time", "5", "-w", "%{http_code}"] + args).text
    }

    @Test(
        "L1: DNS rebinding: a foreign Host, none, or no port is 400, with no state lookup; the real callback still works"
    )
    func l1() throws {
        let h = try Harness()
        let l = try listening(h)
        // A request that reaches the router is counted (routed or refused); one stopped at the
        // Host check never is. The positive control: a right Host with a wrong state is counted.
        let counted = { try h.app.counter("links_routed") + h.app.counter("links_refused") }
        let before = try counted()
        for host in ["Host: rebind.evil.example:\(l.port)", "Host:", "Host: 127.0.0.1"] {
            #expect(try code(h, ["-H", host, "\(l.base)/cb?code=c&state=\(l.state)"]) == "400", "\(host)")
        }
        #expect(try counted() == before, "a request with a foreign Host reached the state lookup")
        #expect(try code(h, ["\(l.base)/cb?code=c&state=not-\(l.state)"]) == "400")
        #expect(try counted() == before + 1)
        #expect(try code(h, ["\(l.base)/cb?code=c&state=\(l.state)"]) == "200")
    }

    @Test("L2: wrong methods and paths are 405/404/400 without touching sessions, never with Access-Control headers")
    func l2() throws {
        let h = try Harness()
        let l = try listening(h)
        for (args, want) in [(["-X", "OPTIONS", "-H", "Origin: https://evil"], "405"), (["-X", "POST"], "405")]
            as [([String], String)]
        {
            let r = try h.desktop.run(
                ["curl", "-s", "-D", "-", "-o", "/dev/null", "--max-time", "5"] + args + [
                    "\(l.base)/cb?code=c&state=\(l.state)"
                ]
            ).text
            #expect(r.hasPrefix("HTTP/1.1 " + want) && !r.lowercased().contains("access-control"))
        }
        for p in ["/", "/favicon.ico", "/cb/"] { #expect(try code(h, ["\(l.base)\(p)"]) == "404") }
        #expect(try code(h, ["--path-as-is", "\(l.base)//cb?code=c&state=\(l.state)"]) == "404")
        let abs = try RawSocket(port: l.port)
        abs.send("GET http://evil/cb?code=c&state=\(l.state) HTTP/1.1\r\nHost: 127.0.0.1:\(l.port)\r\n\r\n")
        #expect(abs.readAll().hasPrefix("HTTP/1.1 400"))
        #expect(try h.app.status(l.path) == "pending")
    }

    @Test(
        "L3: a sub-resource request from a web page: a guessed state is 400, and a non-document fetch is 400 even with the right one"
    )
    func l3() throws {
        let h = try Harness()
        let l = try listening(h)
        #expect(try code(h, ["\(l.base)/cb?code=X&state=guess"]) == "400")
        #expect(try code(h, ["-H", "Sec-Fetch-Dest: image", "\(l.base)/cb?code=X&state=\(l.state)"]) == "400")
        #expect(try code(h, ["-H", "Sec-Fetch-Dest: document", "\(l.base)/cb?code=X&state=\(l.state)"]) == "200")
    }

    @Test(
        "L4: bound to loopback only (a host in another network namespace is refused); a taken fixed port fails the session",
        .enabled(if: geteuid() == 0, "network namespaces need root"))
    func l4() throws {
        let h = try Harness()
        let l = try listening(h)
        let tag = String(Int.random(in: 1000...9999))
        let ns = "lr\(tag)"
        let host = "lrh\(tag)"
        let peer = "lrp\(tag)"
        let net = "10.\(Int.random(in: 100...250)).\(Int.random(in: 1...250))"
        defer {
            _ = try? Subprocess.run(["ip", "netns", "del", ns])
            _ = try? Subprocess.run(["ip", "link", "del", host])
        }
        for cmd in [
            ["ip", "netns", "add", ns], ["ip", "link", "add", host, "type", "veth", "peer", "name", peer],
            ["ip", "link", "set", peer, "netns", ns],
            ["ip", "addr", "add", net + ".1/24", "dev", host], ["ip", "link", "set", host, "up"],
            ["ip", "netns", "exec", ns, "ip", "addr", "add", net + ".2/24", "dev", peer],
            ["ip", "netns", "exec", ns, "ip", "link", "set", peer, "up"],
        ] {
            let r = try Subprocess.run(cmd)
            try #require(r.status == 0, "\(cmd): \(r.errorText)")
        }
        // Control: the host address is reachable from the namespace (a server bound to it answers).
        let server = try Subprocess.spawn(
            ["python3", "-m", "http.server", "--bind", net + ".1", "18123"], stdout: .null, stderr: .null)
        defer {
            Subprocess.stop(server, name: "http.server")
        }
        #expect(
            eventually(timeoutMilliseconds: 5000) {
                (try? Subprocess.run([
                    "ip", "netns", "exec", ns, "curl", "-s", "-o", "/dev/null", "--max-time", "1",
                    "http://\(net).1:18123/",
                ]).status) == 0
            })
        let r = try Subprocess.run([
            "ip", "netns", "exec", ns, "curl", "-s", "-o", "/dev/null", "--max-time", "2", "-w", "%{http_code}",
            "http://\(net).1:\(l.port)/cb?code=c&state=\(l.state)",
        ])
        #expect(r.status == 7 && r.text == "000", "curl exit \(r.status), \(r.text)")
        #expect(try h.app.status(l.path) == "pending")
        try h.expectRefusal(errorPrefix + "ListenerFailed") {
            _ = try h.app.beginQuiet(redirect: "http://127.0.0.1:\(l.port)/cb")
        }
    }

    @Test("L5: slow clients, huge headers, pipelining and a flood of connections never stop the real callback")
    func l5() throws {
        let h = try Harness()
        let l = try listening(h)
        #expect(try code(h, ["-H", "X-Big: " + String(repeating: "a", count: 65536), "\(l.base)/cb"]) == "431")
        let slow = try (0..<8).map { _ in try RawSocket(port: l.port) }
        for s in slow { s.send("GET /cb HTTP/1.1\r\nHost: 127.0.0.1:\(l.port)\r\n") }
        // More idle connections than the cap of 32: the daemon keeps answering on the bus and the
        // session is untouched. (That nothing past the cap is served is not checked: MHD stops
        // accepting, and the only sign of that is a client's timeout; docs/security.md, L5.)
        var flood: [RawSocket]? = (0..<40).compactMap { _ in try? RawSocket(port: l.port) }
        #expect(flood!.count == 40)
        #expect(h.daemonAnswers)
        #expect(try h.app.status(l.path) == "pending")
        flood = nil
        let pipelined = try RawSocket(port: l.port)
        pipelined.send(
            "GET /x HTTP/1.1\r\nHost: 127.0.0.1:\(l.port)\r\n\r\nGET /cb?code=c&state=\(l.state) HTTP/1.1\r\nHost: 127.0.0.1:\(l.port)\r\n\r\n"
        )
        #expect(pipelined.readAll().components(separatedBy: "HTTP/1.1 ").count == 2)
        #expect(try h.app.status(l.path) == "pending")
        // With the flood gone, the real callback is answered while the slow ones still hang.
        #expect(eventually { (try? code(h, ["\(l.base)/cb?code=real&state=\(l.state)"])) == "200" })
        #expect(try h.app.wait(l.path)["code"] == "real")
        _ = slow
    }

    @Test(
        "L6: the page reflects nothing, is not cached, sends no referrer, loads nothing; the listener closes after the one valid answer"
    )
    func l6() throws {
        let h = try Harness()
        let l = try listening(h)
        let r = try h.desktop.run([
            "curl", "-s", "-D", "-", "--max-time", "5",
            "\(l.base)/cb?error=access_denied&error_description=%3Cb%3Ehi%3C%2Fb%3E&state=\(l.state)",
        ]).text
        #expect(
            r.contains("Cache-Control: no-store") && r.contains("Referrer-Policy: no-referrer")
                && r.contains("default-src 'none'"))
        #expect(!r.contains("<b>hi") && !r.contains("src=") && !r.contains("<script"))
        #expect(eventually { !RawSocket.isListening(port: l.port) })
    }
}
