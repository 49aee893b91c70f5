import LinkRouterCore
import Testing

/// The device authorization grant's rules (RFC 8628): what a provider's
/// answer must hold before a person is shown anything, and what each poll
/// answer leads to.
@Suite("Device authorization grant (RFC 8628)")
struct DeviceGrantTests {
    static let issuer = OpenIDTests.issuer
    static let request = DeviceGrant.Request(
        endpoint: issuer + "/device_authorization", clientID: "client", scope: "openid")
    let now: Int64 = 1_800_000_000

    static func answer(_ change: (inout [(String, JSONValue)]) -> Void = { _ in }) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("device_code", .string("GmRhmhcxhwAzkoEqiMEg_DnyEysNkuNhszIySk9eS")), ("user_code", .string("WDJB-MJHT")),
            ("verification_uri", .string(issuer + "/device")),
            ("verification_uri_complete", .string(issuer + "/device?user_code=WDJB-MJHT")),
            ("expires_in", .integer(1800)), ("interval", .integer(5)),
        ]
        change(&members)
        return .object(members)
    }

    @Test("the metadata names device_authorization_endpoint under the endpoint rules")
    func metadata() throws {
        let offered = OpenIDTests.document(
            OpenIDTests.set("device_authorization_endpoint", .string(Self.issuer + "/device_authorization")))
        #expect(
            try ProviderMetadata(document: offered, expectedIssuer: Self.issuer, from: "x").deviceAuthorizationEndpoint
                == Self.issuer + "/device_authorization")
        #expect(
            try ProviderMetadata(document: OpenIDTests.document(), expectedIssuer: Self.issuer, from: "x")
                .deviceAuthorizationEndpoint == nil)
        let plain = OpenIDTests.document(
            OpenIDTests.set("device_authorization_endpoint", .string("http://elsewhere.example/device")))
        #expect(
            try ProviderMetadata(document: plain, expectedIssuer: Self.issuer, from: "x").deviceAuthorizationEndpoint
                == nil, "plain http off loopback is no endpoint")
    }

    @Test("an answer is read whole: codes, pages, lifetime and interval (5 s when absent), each within bounds")
    func answerRead() throws {
        let a = try DeviceAuthorization(status: 200, body: Self.answer(), request: Self.request)
        #expect(a.deviceCode == "GmRhmhcxhwAzkoEqiMEg_DnyEysNkuNhszIySk9eS" && a.userCode == "WDJB-MJHT")
        #expect(
            a.verificationURI == Self.issuer + "/device"
                && a.verificationURIComplete == Self.issuer + "/device?user_code=WDJB-MJHT")
        #expect(a.expiresIn == 1800 && a.interval == 5)
        let bare = try DeviceAuthorization(
            status: 200,
            body: Self.answer { $0.removeAll { ["interval", "verification_uri_complete"].contains($0.0) } },
            request: Self.request)
        #expect(bare.interval == DeviceGrant.defaultInterval && bare.verificationURIComplete == nil)
        let long = try DeviceAuthorization(
            status: 200, body: Self.answer(OpenIDTests.set("expires_in", .integer(10_000_000))), request: Self.request)
        #expect(long.expiresIn == DeviceGrant.maxLifetime)
        let slow = try DeviceAuthorization(
            status: 200, body: Self.answer(OpenIDTests.set("interval", .integer(100_000))), request: Self.request)
        #expect(slow.interval == DeviceGrant.maxInterval)
    }

    @Test(
        "an answer missing or spoiling a field is refused, naming the field: a page that is not https, a code with a terminal escape or a line break, never shown",
        arguments: [
            ("device_code", nil), ("user_code", nil), ("verification_uri", nil), ("expires_in", nil),
            ("user_code", JSONValue.string("")), ("user_code", .string("WDJB\u{1B}[2J")),
            ("user_code", .string("WDJB-MJHT\n")), ("user_code", .string(String(repeating: "A", count: 65))),
            ("device_code", .integer(7)), ("verification_uri", .string("javascript:alert(1)")),
            ("verification_uri", .string("http://evil.example/device")),
            ("verification_uri", .string("file:///etc/passwd")),
            ("verification_uri_complete", .string("https://user@evil.example/")),
            ("expires_in", .integer(0)), ("expires_in", .string("1800")), ("interval", .integer(-1)),
        ] as [(String, JSONValue?)])
    func answerRefused(_ key: String, _ value: JSONValue?) {
        #expect {
            _ = try DeviceAuthorization(
                status: 200, body: Self.answer(OpenIDTests.set(key, value)), request: Self.request)
        } throws: { error in
            guard let e = error as? RouterError else { return false }
            return e.code == .authorizationFailed && e.message.contains(key) && e.message.contains("nothing was shown")
        }
    }

    @Test(
        "a refusal says which request failed and what the provider said, sanitized; an empty body says no reason was given"
    )
    func refusal() {
        #expect {
            _ = try DeviceAuthorization(
                status: 400,
                body: .object([("error", .string("invalid_client")), ("error_description", .string("no such client"))]),
                request: Self.request)
        } throws: { error in
            (error as? RouterError)?.message.contains(
                "the device authorization request to \(Self.issuer)/device_authorization was refused: HTTP 400: invalid_client, no such client"
            )
                == true
        }
        #expect {
            _ = try DeviceAuthorization(status: 403, body: nil, request: Self.request)
        } throws: { error in
            (error as? RouterError)?.message.contains("HTTP 403, no reason given") == true
        }
        #expect(Self.request.form.map(\.0) == ["client_id", "scope"], "a public client sends nothing else")
    }

    func poll(_ error: String?, interval: UInt32 = 5, deadline: Int64? = nil) -> DeviceGrant.Step {
        DeviceGrant.step(
            after: SessionFailure(
                code: .tokenExchangeFailed, providerError: error, message: "the token endpoint refused the request"),
            interval: interval, now: now,
            deadline: deadline ?? now + 600)
    }

    @Test(
        "polls: pending waits the interval; slow_down adds 5 s each time, for good; trouble with no error of the provider's doubles it; denied, expired and any other error end it"
    )
    func polls() {
        #expect(poll("authorization_pending") == .poll(interval: 5))
        #expect(poll("slow_down") == .poll(interval: 10))
        #expect(poll("slow_down", interval: 10) == .poll(interval: 15))
        #expect(
            poll("slow_down", interval: DeviceGrant.maxInterval) == .poll(interval: DeviceGrant.maxInterval), "bounded")
        #expect(
            poll(nil) == .poll(interval: 10) && poll(nil, interval: 200) == .poll(interval: DeviceGrant.maxInterval),
            "no connection, a 5xx: back off")
        guard case .end(let denied) = poll("access_denied"), case .end(let expired) = poll("expired_token"),
            case .end(let other) = poll("invalid_grant")
        else {
            Issue.record("a final answer did not end the grant")
            return
        }
        #expect(denied.code == .authorizationFailed && expired.code == .expired && other.code == .tokenExchangeFailed)
    }

    @Test("no poll is made after the device code's deadline: the grant ends as expired instead")
    func deadline() {
        #expect(poll("authorization_pending", deadline: now + 6) == .poll(interval: 5))
        guard case .end(let e) = poll("authorization_pending", deadline: now + 5),
            case .end(let slowed) = poll("slow_down", deadline: now + 9)
        else {
            Issue.record("a poll past the deadline was planned")
            return
        }
        #expect(e.code == .expired && slowed.code == .expired)
    }
}
