import Testing

@testable import LinkRouterCore

/// Pushed authorization requests (RFC 9126): when and where a login pushes,
/// what the browser then opens, and what a refused push leaves (nothing).
@Suite("Pushed authorization requests")
struct PushedAuthorizationTests {
    let now: Int64 = 1_800_000_000
    static let issuer = OpenIDTests.issuer

    /// An exchange login with the `par` option.
    static func request(par: String? = nil) -> SessionRequest {
        var r = OpenIDTests.exchangeRequest()
        r.par = par
        return r
    }

    /// A provider that offers PAR at `endpoint` (`required`: and requires it).
    static func metadata(endpoint: String? = issuer + "/par", required: Bool = false) -> ProviderMetadata {
        ProviderMetadata(
            issuer: issuer, authorizationEndpoint: issuer + "/auth", tokenEndpoint: issuer + "/token",
            jwksURI: issuer + "/jwks",
            issParameterSupported: true, pushedAuthorizationRequestEndpoint: endpoint,
            requirePushedAuthorizationRequests: required)
    }

    @Test("the metadata: the endpoint under the endpoint rules, and the requirement")
    func metadata() throws {
        let document = OpenIDTests.document {
            $0 += [
                ("pushed_authorization_request_endpoint", .string(Self.issuer + "/par")),
                ("require_pushed_authorization_requests", .bool(true)),
            ]
        }
        let m = try ProviderMetadata(document: document, expectedIssuer: Self.issuer, from: "x")
        #expect(m.pushedAuthorizationRequestEndpoint == Self.issuer + "/par" && m.requirePushedAuthorizationRequests)
        #expect(
            try ProviderMetadata(document: OpenIDTests.document(), expectedIssuer: Self.issuer, from: "x")
                .pushedAuthorizationRequestEndpoint == nil)
        let plain = OpenIDTests.document(
            OpenIDTests.set("pushed_authorization_request_endpoint", .string("http://elsewhere.example/par")))
        #expect(
            try ProviderMetadata(document: plain, expectedIssuer: Self.issuer, from: "x")
                .pushedAuthorizationRequestEndpoint == nil, "plain http off loopback is no endpoint")
    }

    @Test(
        "auto: the request is pushed before anything is kept or opened; the browser gets client_id and request_uri only"
    )
    func pushedThenBegun() throws {
        var router = Router()
        let asked = router.beginSession(
            Self.request(), inputs: Fixtures.inputs(4), caller: ":1.5", login: false, now: now)
        let op = try #require(asked.held)
        router.take(asked)
        let begin = router.completed(op, .begin(.metadata(.success(Self.metadata()))), now: now)
        #expect(begin.changes.isEmpty, "no session before the provider has the request")
        guard case .begin(.push(let push))? = begin.operation(op) else {
            Issue.record("no push: \(begin.effects)")
            return
        }
        #expect(push.endpoint == Self.issuer + "/par")
        let fields = Dictionary(uniqueKeysWithValues: push.parameters.map { ($0.name, $0.value) })
        #expect(
            fields["client_id"] == "client" && fields["response_type"] == "code"
                && fields["redirect_uri"] == "com.example.app:/callback")
        #expect(
            fields["state"] == Fixtures.secrets(4).state && fields["code_challenge_method"] == "S256"
                && fields["nonce"] != nil)
        router.take(begin)

        let pushed = router.completed(op, .begin(.pushed(.success("urn:ietf:params:oauth:request_uri:abc"))), now: now)
        let session = try #require(pushed.session)
        #expect(session.codeLogin.state == Fixtures.secrets(4).state)
        #expect(
            pushed.answers == [
                .answer(
                    op,
                    .begun(
                        session.id,
                        authorizeURL: Self.issuer
                            + "/auth?client_id=client&request_uri=urn%3Aietf%3Aparams%3Aoauth%3Arequest_uri%3Aabc"))
            ])
    }

    /// A loopback login at a provider with PAR, up to its listener's port: the router, the
    /// operation its call is held under, and the transition that bound the port (it starts the push).
    func loopbackListening(_ n: Int, port: Int) throws -> (router: Router, op: OperationID, listening: Transition) {
        var router = Router()
        var r = Self.request()
        r.redirectURI = "http://127.0.0.1/callback"
        let asked = router.beginSession(r, inputs: Fixtures.inputs(n), caller: ":1.5", login: false, now: now)
        let op = try #require(asked.held)
        router.take(asked)
        router.take(router.completed(op, .begin(.metadata(.success(Self.metadata()))), now: now))
        // The listener first (it names the port), then the push.
        return (router, op, router.completed(op, .begin(.listening(.success(port))), now: now))
    }

    @Test("a refused push: the caller hears why, no session is kept, a loopback listener is closed")
    func refused() throws {
        var (router, op, listening) = try loopbackListening(5, port: 40123)
        guard case .begin(.push(let push))? = listening.operation(op) else {
            Issue.record("no push after the listener: \(listening.effects)")
            return
        }
        #expect(
            push.parameters.contains(PushRequest.Field(name: "redirect_uri", value: "http://127.0.0.1:40123/callback")))
        #expect(
            !listening.effects.contains(.closeListener(Fixtures.secrets(5).id)),
            "the listener stays while the request is pushed")
        router.take(listening)
        let e = RouterError(
            .authorizationFailed,
            "the pushed authorization request to \(Self.issuer)/par was refused: HTTP 403, with an empty body; nothing was opened"
        )
        let failed = router.completed(op, .begin(.pushed(.failure(e))), now: now)
        #expect(failed.changes.isEmpty)
        #expect(failed.answers == [.answer(op, .refused(e))])
        #expect(failed.effects.contains(.closeListener(Fixtures.secrets(5).id)))
        router.take(failed)
        #expect(router.running.isEmpty && router.all.isEmpty)
    }

    @Test("par: off never pushes, require always does, and each refuses what cannot be met")
    func modes() throws {
        func plan(_ r: SessionRequest, _ m: ProviderMetadata? = Self.metadata()) -> Result<String?, RouterError> {
            do {
                return .success(
                    try SessionPlan.make(r, metadata: m, owner: Fixtures.caller, limits: Limits()).pushEndpoint)
            } catch { return .failure(error) }
        }
        #expect(try plan(Self.request()).get() == Self.issuer + "/par")
        #expect(try plan(Self.request(par: "off")).get() == nil)
        #expect(
            try plan(Self.request(), Self.metadata(endpoint: nil)).get() == nil,
            "auto without an endpoint: a plain authorize URL")
        #expect(try plan(Self.request(par: "require")).get() == Self.issuer + "/par")
        func refusal(_ r: SessionRequest, _ m: ProviderMetadata? = Self.metadata()) -> String {
            if case .failure(let e) = plan(r, m) { return e.message }
            return "accepted"
        }
        #expect(
            refusal(Self.request(par: "require"), Self.metadata(endpoint: nil)).contains(
                "lists no usable pushed_authorization_request_endpoint"))
        #expect(
            refusal(Self.request(par: "off"), Self.metadata(required: true)).contains(
                "requires pushed authorization requests"))
        #expect(
            refusal(Self.request(), Self.metadata(endpoint: nil, required: true)).contains(
                "requires pushed authorization requests"))
        #expect(refusal(Self.request(par: "maybe")).contains("not one of auto, require, off"))
        #expect(refusal(Fixtures.request { $0.par = "require" }, nil).contains("needs the issuer's metadata"))
        #expect(
            refusal(
                Fixtures.request {
                    $0.par = "auto"
                    $0.authorizationEndpoint = nil
                    $0.clientID = nil
                    $0.redirectURI = nil
                    $0.authorizeURL = "https://auth.example.com/a?state=" + String(repeating: "s", count: 32)
                }
            ).contains("cannot be combined with authorize_url"))
    }

    @Test(
        "a loopback login pushed: its listener stays up through the push, and the session listens on the port it pushed"
    )
    func loopbackPushed() throws {
        var (router, op, listening) = try loopbackListening(6, port: 40124)
        #expect(!listening.effects.contains(.closeListener(Fixtures.secrets(6).id)))
        router.take(listening)
        let pushed = router.completed(op, .begin(.pushed(.success("urn:ietf:params:oauth:request_uri:loop"))), now: now)
        let session = try #require(pushed.session)
        #expect(session.codeLogin.redirect.string == "http://127.0.0.1:40124/callback")
        #expect(!pushed.effects.contains(.closeListener(session.id)))
        #expect(pushed.compensation == [.closeListener(session.id)], "closed only if the session is undone")
    }

    @Test("request_uri is the daemon's: extra_params may not set it")
    func requestURIReserved() throws {
        do {
            _ = try SessionPlan.make(
                Fixtures.request { $0.extraParams = ["request_uri": "urn:x"] }, owner: Fixtures.caller, limits: Limits()
            )
            Issue.record("accepted")
        } catch {
            #expect(error.message.contains("may not set \"request_uri\""), "\(error.message)")
        }
    }

    @Test("par=require with an issuer and an explicit endpoint fetches the metadata for the PAR endpoint")
    func requireDiscovers() {
        #expect(
            SessionPlan.needsDiscovery(
                Fixtures.request {
                    $0.issuer = Self.issuer
                    $0.par = "require"
                }))
        #expect(!SessionPlan.needsDiscovery(Fixtures.request { $0.issuer = Self.issuer }))
    }
}
