import HTTPKit
import SystemKit
import Testing

/// HTTPClient against a real local server (Fixtures/http_test_server.py),
/// driven by turning a real EventLoop until the completions arrive.
@Suite("HTTP client")
struct HTTPClientTests {
    typealias Outcome = Result<HTTPResponse, HTTPError>

    /// One request on a fresh loop, to its completion (or nil after `limit`).
    private func fetch(_ request: HTTPRequest, caFile: String?, limit: Int64 = 10_000) throws -> Outcome? {
        let loop = EventLoop()
        let client = try HTTPClient(loop: loop, userAgent: "linkrouter-test/1", caFile: caFile)
        var outcome: Outcome?
        client.send(request) { outcome = $0 }
        #expect(outcome == nil, "completed inside send()")
        turn(loop, limit: limit) { outcome != nil }
        return outcome
    }

    /// Turns `loop` until `done` or `limit` milliseconds; waits on the loop, never sleeps.
    @discardableResult
    private func turn(_ loop: EventLoop, limit: Int64 = 10_000, until done: () -> Bool) -> Bool {
        let deadline = Clock.monotonicMilliseconds() + limit
        while !done() {
            let left = deadline - Clock.monotonicMilliseconds()
            if left <= 0 { return false }
            loop.turn(maxWaitMilliseconds: Int32(min(left, 1000)))
        }
        return true
    }

    private func response(_ outcome: Outcome?) -> HTTPResponse? {
        guard case .success(let r) = outcome else {
            Issue.record("expected a response, got \(String(describing: outcome))")
            return nil
        }
        return r
    }

    private func errorCode(_ outcome: Outcome?) -> HTTPError.Code? {
        guard case .failure(let e) = outcome else { return nil }
        return e.code
    }

    @Test("GET: status, body, headers; our User-Agent and Accept; no cookies")
    func get() throws {
        let server = try TestHTTPServer()
        guard let r = response(try fetch(.get(server.https + "/hello"), caFile: server.caFile)) else { return }
        #expect(r.status == 200)
        #expect(r.body == Array(#"{"hello":"world"}"#.utf8))
        #expect(r.contentType == "application/json; charset=utf-8")
        #expect(r.mediaType == "application/json")
        #expect(r.cacheControl.maxAge == 300)
        #expect(r.age == 20)
        #expect(
            r.freshnessSeconds.map { (278...280).contains($0) } == true,
            "max-age 300 less Age 20: \(String(describing: r.freshnessSeconds))")
        #expect(r.headers["x-got-user-agent"] == "linkrouter-test/1", "the User-Agent its caller gave")
        #expect(r.headers["X-Got-Accept"] == "application/json")
        #expect(r.headers["X-Got-Cookie"] == "")
    }

    @Test("POST form: the body arrives byte for byte, as a form, without Expect")
    func postForm() throws {
        let server = try TestHTTPServer()
        let pairs = [
            ("grant_type", "authorization_code"), ("code", "a b+c&d=e/é"),
            ("redirect_uri", "http://127.0.0.1:8080/cb?x=1"), ("code_verifier", "~*'!-._"),
        ]
        let expected =
            "grant_type=authorization_code&code=a+b%2Bc%26d%3De%2F%C3%A9"
            + "&redirect_uri=http%3A%2F%2F127.0.0.1%3A8080%2Fcb%3Fx%3D1&code_verifier=%7E%2A%27%21-._"
        guard let r = response(try fetch(.postForm(server.https + "/echo", pairs), caFile: server.caFile)) else {
            return
        }
        #expect(r.status == 200)
        #expect(r.body == Array(expected.utf8))
        #expect(r.headers["X-Got-Method"] == "POST")
        #expect(r.headers["X-Got-Content-Type"] == "application/x-www-form-urlencoded")
        #expect(r.headers["X-Got-Expect"] == "")
    }

    @Test("4xx and 5xx are responses, not errors", arguments: [400, 404, 503])
    func statuses(_ status: Int) throws {
        let server = try TestHTTPServer()
        guard let r = response(try fetch(.get(server.https + "/status/\(status)"), caFile: server.caFile)) else {
            return
        }
        #expect(r.status == status)
        #expect(r.body == Array("status \(status)".utf8))
    }

    @Test("a 302 is returned, not followed")
    func redirect() throws {
        let server = try TestHTTPServer()
        guard let r = response(try fetch(.get(server.https + "/redirect"), caFile: server.caFile)) else { return }
        #expect(r.status == 302)
        #expect(r.location == "/hello")
        #expect(r.body == Array("moved".utf8))
    }

    @Test(
        "a body over maxResponseBytes fails with tooLarge, with or without Content-Length",
        arguments: ["big", "stream"])
    func tooLarge(_ kind: String) throws {
        let server = try TestHTTPServer()
        var request = HTTPRequest.get(server.https + "/\(kind)/50000")
        request.maxResponseBytes = 4000
        let outcome = try fetch(request, caFile: server.caFile)
        #expect(errorCode(outcome) == .tooLarge, "\(String(describing: outcome))")
        request.url = server.https + "/\(kind)/4000"
        #expect(response(try fetch(request, caFile: server.caFile))?.body.count == 4000)
    }

    @Test(
        "a stalling server ends in .timeout, naming the server (the bound is libcurl's to keep; no clock is read here)")
    func timeout() throws {
        let server = try TestHTTPServer()
        var request = HTTPRequest.get(server.https + "/stall")
        request.timeoutMilliseconds = 400
        let outcome = try fetch(request, caFile: server.caFile)
        #expect(errorCode(outcome) == .timeout, "\(String(describing: outcome))")
        if case .failure(let e) = outcome {
            #expect(e.message.contains("127.0.0.1:\(server.httpsPort)"))
            // The request went out before the server stalled: it may have acted on it (a provider's refresh).
            #expect(e.sent, "a stalled answer reads as never sent")
        }
    }

    @Test(
        "a request that never went out (nobody listening on the port) is not `sent`: the server cannot have acted on it"
    )
    func notSent() throws {
        let server = try TestHTTPServer()
        let closed = server.httpsPort == 1 ? 2 : 1
        let outcome = try fetch(.get("https://127.0.0.1:\(closed)/hello"), caFile: server.caFile)
        #expect(errorCode(outcome) == .connect, "\(String(describing: outcome))")
        if case .failure(let e) = outcome { #expect(!e.sent) }
        let untrusted = try fetch(.get(server.https + "/hello"), caFile: nil)
        if case .failure(let e) = untrusted { #expect(e.code == .tls && !e.sent, "\(e)") }
    }

    @Test("TLS: an untrusted certificate, one for another name, or an unreadable CA file fails with .tls")
    func untrusted() throws {
        let server = try TestHTTPServer()
        let outcome = try fetch(.get(server.https + "/hello"), caFile: nil)
        #expect(errorCode(outcome) == .tls, "\(String(describing: outcome))")
        if case .failure(let e) = outcome { #expect(e.message.contains("127.0.0.1:\(server.httpsPort)")) }
        // Trusted CA, but the certificate names 127.0.0.1 only.
        let wrongName = try fetch(.get("https://localhost:\(server.httpsPort)/hello"), caFile: server.caFile)
        #expect(errorCode(wrongName) == .tls, "\(String(describing: wrongName))")
        // A CA file that cannot be read is a TLS failure too, never a fallback to the system's store.
        let missing = try fetch(.get(server.https + "/hello"), caFile: server.caFile + ".missing")
        #expect(errorCode(missing) == .tls, "\(String(describing: missing))")
    }

    @Test("refused before any connection: http off loopback, other schemes, credentials, bad headers")
    func refused() throws {
        let loop = EventLoop()
        let client = try HTTPClient(loop: loop, userAgent: "linkrouter-test/1", caFile: nil)
        var urls = [
            "http://example.com/", "http://192.0.2.1/token", "http://127.0.0.2/", "ftp://127.0.0.1/",
            "file:///etc/passwd",
            "https://user:pw@127.0.0.1/", "not a url", "/relative", "https://127.0.0.1/\u{0}x",
        ]
        var requests = urls.map { HTTPRequest.get($0) }
        var withCookie = HTTPRequest.get("https://127.0.0.1/")
        var split = withCookie
        var getBody = withCookie
        withCookie.headers.add("Cookie", "a=b")
        split.headers.add("X-Test", "a\r\nHost: evil")
        getBody.body = [1]
        requests += [withCookie, split, getBody]
        urls += ["Cookie header", "CRLF in a header", "GET with a body"]
        var outcomes: [Int: Outcome] = [:]
        for (i, request) in requests.enumerated() { client.send(request) { outcomes[i] = $0 } }
        #expect(outcomes.isEmpty, "completed inside send()")
        turn(loop, limit: 2000) { outcomes.count == requests.count }
        for i in requests.indices {
            let expected: HTTPError.Code = i >= requests.count - 3 ? .invalidRequest : .refusedURL
            #expect(errorCode(outcomes[i]) == expected, "\(urls[i]): \(String(describing: outcomes[i]))")
        }
        if case .failure(let e) = outcomes[0] { #expect(e.host == "example.com" && e.message.contains("only https")) }
        #expect(client.inFlight == 0)
    }

    @Test("http is allowed to a loopback host")
    func loopbackHTTP() throws {
        let server = try TestHTTPServer()
        #expect(response(try fetch(.get(server.http + "/hello"), caFile: nil))?.status == 200)
    }

    @Test("a stalled request does not delay another; cancel stops it without a completion")
    func concurrent() throws {
        let server = try TestHTTPServer()
        let loop = EventLoop()
        let client = try HTTPClient(loop: loop, userAgent: "linkrouter-test/1", caFile: server.caFile)
        var order: [String] = []
        let stalled = client.send(.get(server.https + "/stall")) { _ in order.append("stalled") }
        client.send(.get(server.https + "/hello")) { _ in order.append("fast") }
        #expect(turn(loop, limit: 5000) { order == ["fast"] })
        #expect(client.inFlight == 1)
        client.cancel(stalled)
        #expect(client.inFlight == 0)
        // Another exchange on the same loop: the cancelled completion has had every chance to run.
        client.send(.get(server.https + "/hello")) { _ in order.append("fast again") }
        #expect(turn(loop, limit: 5000) { order.count == 2 })
        #expect(order == ["fast", "fast again"])
    }

    @Test("one client keeps its connection: a second request reuses it")
    func reuse() throws {
        let server = try TestHTTPServer()
        let loop = EventLoop()
        let client = try HTTPClient(loop: loop, userAgent: "linkrouter-test/1", caFile: server.caFile)
        var ports: [String] = []
        for _ in 0..<2 {
            client.send(.get(server.https + "/hello")) {
                ports.append((try? $0.get().headers["X-Client-Port"]) ?? "failed")
            }
            let count = ports.count
            turn(loop, limit: 5000) { ports.count > count }
        }
        #expect(ports.count == 2 && ports[0] == ports[1] && ports[0] != "failed", "\(ports)")
    }

    @Test("cancel before the loop turns: neither a transfer nor a refused request completes")
    func cancelEarly() throws {
        let server = try TestHTTPServer()
        let loop = EventLoop()
        var client: HTTPClient? = try HTTPClient(loop: loop, userAgent: "linkrouter-test/1", caFile: server.caFile)
        var calls: [String] = []
        let a = client!.send(.get(server.https + "/hello")) { _ in calls.append("a") }
        let b = client!.send(.get("http://example.com/")) { _ in calls.append("b") }
        client!.cancel(a)
        client!.cancel(b)
        client!.cancel(a)
        client!.send(.get(server.https + "/hello")) { _ in calls.append("c") }
        #expect(turn(loop, limit: 5000) { !calls.isEmpty })
        #expect(calls == ["c"])
        // Dropping the client with a request in flight: no completion, nothing left on the loop.
        client!.send(.get(server.https + "/stall")) { _ in calls.append("d") }
        loop.turn(maxWaitMilliseconds: 0)
        client = nil
        loop.turn(maxWaitMilliseconds: 0)
        #expect(calls == ["c"])
    }
}
