import Glibc
import LoopTesting
import Loopback
import SystemKit
import Testing

/// `LoopbackListener` in the test's process, on the test's loop, with real
/// requests over real sockets: what reaches the handler, what reaches the
/// browser, and what the listener answers by itself without asking it.
@Suite("Loopback: the listener")
struct LoopbackListenerTests {
    /// What the handler was asked, in order.
    final class Calls {
        var requests: [Loopback.HTTPRequest] = []
    }

    let loop = EventLoop()
    let calls = Calls()

    /// A listener for `/callback` whose handler records each request and answers the signed-in page.
    func listen(
        _ addresses: [String] = ["127.0.0.1"], host: String = "127.0.0.1", port: Int = 0, final: Bool = false
    ) throws -> LoopbackListener {
        try LoopbackListener(addresses: addresses, port: port, hostLiteral: host, path: "/callback", loop: loop) {
            [calls] request in
            calls.requests.append(request)
            return HTTPResponse(status: 200, body: CallbackPage.signedIn, final: final)
        }
    }

    /// `GET target` with `Host: host`, and any more header lines.
    func get(_ target: String, host: String, _ more: String = "") -> String {
        "GET \(target) HTTP/1.1\r\nHost: \(host)\r\n\(more)\r\n"
    }

    @Test(
        "a callback on 127.0.0.1: the handler gets the target byte for byte; the browser gets the page and its headers")
    func callback() throws {
        let listener = try listen()
        let host = "127.0.0.1:\(listener.port)"
        #expect(listener.addresses == ["127.0.0.1"] && listener.port > 0 && listener.expectedHost == host)
        let target = "/callback?code=a%2Fb%20c~&state=S-1.x_y&iss=https%3A%2F%2Fid.example"
        let answer = try RawHTTPExchange(get(target, host: host), port: listener.port, loop: loop)
        #expect(answer.status == 200)
        #expect(answer.body == CallbackPage.signedIn)
        #expect(calls.requests.map(\.target) == [target], "escapes kept as they came")
        #expect(calls.requests.first?.method == "GET" && calls.requests.first?.host == host)
        for (name, value) in [
            ("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store"),
            ("Referrer-Policy", "no-referrer"),
            ("Content-Security-Policy", "default-src 'none'; form-action 'none'; frame-ancestors 'none'"),
            ("X-Content-Type-Options", "nosniff"), ("X-Frame-Options", "DENY"),
        ] {
            #expect(answer.header(name) == value, "\(name)")
        }
    }

    @Test(
        "another path is 404 and never reaches the handler",
        arguments: ["/", "/callback/", "/callbackx?state=s", "/Callback", "/favicon.ico", "/x/../callback"])
    func otherPath(_ target: String) throws {
        let listener = try listen()
        let answer = try RawHTTPExchange(
            get(target, host: "127.0.0.1:\(listener.port)"), port: listener.port, loop: loop)
        #expect(answer.status == 404)
        #expect(answer.body == CallbackPage.status(404))
        #expect(calls.requests.isEmpty)
    }

    @Test("a method other than GET is 405 with Allow: GET, and never reaches the handler", arguments: ["POST", "PUT"])
    func otherMethod(_ method: String) throws {
        let listener = try listen()
        let request =
            "\(method) /callback?state=s HTTP/1.1\r\nHost: 127.0.0.1:\(listener.port)\r\n"
            + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 6\r\n\r\ncode=c"
        let answer = try RawHTTPExchange(request, port: listener.port, loop: loop)
        #expect(answer.status == 405)
        #expect(answer.header("Allow") == "GET")
        #expect(calls.requests.isEmpty)
    }

    @Test(
        "a Host other than the redirect URI's literal and port is 400 (DNS rebinding), and never reaches the handler",
        arguments: ["localhost:PORT", "127.0.0.1:1", "rebind.example:PORT", "127.0.0.1", "[::1]:PORT"])
    func otherHost(_ given: String) throws {
        let listener = try listen()
        let host = given.replacing("PORT", with: String(listener.port))
        let answer = try RawHTTPExchange(get("/callback?state=s", host: host), port: listener.port, loop: loop)
        #expect(answer.status == 400)
        #expect(calls.requests.isEmpty)
    }

    @Test("a sub-resource fetch (Sec-Fetch-Dest other than document) is 400; a navigation reaches the handler")
    func subresource() throws {
        let listener = try listen()
        let host = "127.0.0.1:\(listener.port)"
        let image = try RawHTTPExchange(
            get("/callback?state=s", host: host, "Sec-Fetch-Dest: image\r\n"), port: listener.port, loop: loop)
        #expect(image.status == 400)
        #expect(calls.requests.isEmpty)
        let page = try RawHTTPExchange(
            get("/callback?state=s", host: host, "Sec-Fetch-Dest: document\r\n"), port: listener.port, loop: loop)
        #expect(page.status == 200)
        #expect(calls.requests.count == 1)
    }

    @Test("after the final answer onFinished runs once; a replay is 400 and never reaches the handler")
    func final() throws {
        let listener = try listen(final: true)
        var finished = 0
        listener.onFinished = { finished += 1 }
        let host = "127.0.0.1:\(listener.port)"
        let first = try RawHTTPExchange(get("/callback?state=s", host: host), port: listener.port, loop: loop)
        #expect(first.status == 200)
        #expect(loop.turn(until: { finished > 0 }), "onFinished did not run")
        let replay = try RawHTTPExchange(get("/callback?state=s", host: host), port: listener.port, loop: loop)
        #expect(replay.status == 400)
        #expect(calls.requests.count == 1)
        #expect(finished == 1)
    }

    @Test("a port another listener has is refused, never shared; close() releases it, and a new listener takes it")
    func closeReleasesThePort() throws {
        let first = try listen()
        let port = first.port
        let taken = #expect(throws: ListenerError.self) { try listen(port: port) }
        #expect(taken?.description.contains("already in use") == true, "\(String(describing: taken))")
        first.close()
        // Nothing listens there any more: a connection is refused.
        #expect(throws: SystemError.self) { close(try RawHTTPExchange.connect("127.0.0.1", port: port)) }
        let second = try listen(port: port)
        #expect(second.port == port)
        let answer = try RawHTTPExchange(get("/callback?state=s", host: "127.0.0.1:\(port)"), port: port, loop: loop)
        #expect(answer.status == 200)
        #expect(calls.requests.count == 1)
    }

    @Test("localhost: 127.0.0.1 and ::1 on one port, each answering the callback whose Host is localhost:PORT")
    func bothFamilies() throws {
        let listener = try listen(["127.0.0.1", "::1"], host: "localhost")
        try #require(listener.addresses == ["127.0.0.1", "::1"], "this machine has no ::1")
        let host = "localhost:\(listener.port)"
        #expect(listener.expectedHost == host)
        for address in ["127.0.0.1", "::1"] {
            let answer = try RawHTTPExchange(
                get("/callback?state=\(address)", host: host), to: address, port: listener.port, loop: loop)
            #expect(answer.status == 200, "\(address)")
        }
        #expect(calls.requests.map(\.target) == ["/callback?state=127.0.0.1", "/callback?state=::1"])
    }

    @Test(
        "only loopback addresses: any other is refused before anything is bound",
        arguments: ["0.0.0.0", "::", "192.0.2.1"])
    func onlyLoopback(_ address: String) throws {
        let error = #expect(throws: ListenerError.self) { try listen([address]) }
        #expect(error?.description.contains("only 127.0.0.1 and ::1") == true, "\(String(describing: error))")
    }

    @Test("a client that sends half a request holds up no other: the next callback is answered meanwhile")
    func slowClientBlocksNothing() throws {
        let listener = try listen()
        let slow = try RawHTTPExchange.connect("127.0.0.1", port: listener.port)
        defer { close(slow) }
        var half = Array("GET /callback?state=slow HTTP/1.1\r\nHost: 127.0.0.1:\(listener.port)\r\n".utf8)
        #expect(half.withUnsafeMutableBytes { send(slow, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == half.count)
        let answer = try RawHTTPExchange(
            get("/callback?state=quick", host: "127.0.0.1:\(listener.port)"), port: listener.port, loop: loop)
        #expect(answer.status == 200)
        #expect(calls.requests.map(\.target) == ["/callback?state=quick"])
    }

    @Test("headers beyond the listener's memory bound (16 KiB a connection) are refused, and never reach the handler")
    func oversizedHeaders() throws {
        let listener = try listen()
        let padding = "X-Padding: " + String(repeating: "a", count: 20 * 1024) + "\r\n"
        let answer = try RawHTTPExchange(
            get("/callback?state=s", host: "127.0.0.1:\(listener.port)", padding), port: listener.port, loop: loop)
        // libmicrohttpd's own answer: 431 Request Header Fields Too Large (RFC 6585 §5).
        #expect(answer.status == 431)
        #expect(calls.requests.isEmpty)
    }
}
