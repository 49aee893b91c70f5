import Testing

@testable import LinkRouterCore

/// The OpenID Connect rules the core owns: metadata checks, the token
/// response, the ID-token claims, and the exchange as transitions.
@Suite("OpenID Connect rules: metadata, token response, ID-token claims, exchange")
struct OpenIDTests {
    let now = Fixtures.now
    static let issuer = "https://id.example.com/realm"

    static func document(_ change: (inout [(String, JSONValue)]) -> Void = { _ in }) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("issuer", .string(issuer)), ("authorization_endpoint", .string(issuer + "/auth")),
            ("token_endpoint", .string(issuer + "/token")), ("jwks_uri", .string(issuer + "/jwks")),
            ("response_types_supported", .array([.string("code"), .string("id_token")])),
            ("code_challenge_methods_supported", .array([.string("plain"), .string("S256")])),
            ("authorization_response_iss_parameter_supported", .bool(true)),
        ]
        change(&members)
        return .object(members)
    }

    static func set(_ key: String, _ value: JSONValue?) -> (inout [(String, JSONValue)]) -> Void {
        { members in
            members.removeAll { $0.0 == key }
            if let value { members.append((key, value)) }
        }
    }

    func refusal(_ document: JSONValue) -> String? {
        do {
            _ = try ProviderMetadata(
                document: document, expectedIssuer: Self.issuer, from: Self.issuer + "/.well-known/openid-configuration"
            )
        } catch {
            return error.code == .discoveryFailed ? error.message : "wrong code \(error.code)"
        }
        return nil
    }

    @Test("metadata: taken when it names the issuer asked for; refused with the rule when not")
    func metadata() throws {
        let m = try ProviderMetadata(document: Self.document(), expectedIssuer: Self.issuer, from: "x")
        #expect(
            m.tokenEndpoint == Self.issuer + "/token" && m.jwksURI == Self.issuer + "/jwks" && m.issParameterSupported)
        #expect(
            refusal(Self.document(Self.set("issuer", .string(Self.issuer + "/")))).map { $0.contains("identical") }
                == true, "a trailing slash is another issuer")
        #expect(refusal(Self.document(Self.set("issuer", nil))).map { $0.contains("has no issuer") } == true)
        #expect(
            refusal(Self.document(Self.set("code_challenge_methods_supported", .array([.string("plain")])))).map {
                $0.contains("without S256")
            } == true)
        #expect(
            refusal(Self.document(Self.set("code_challenge_methods_supported", nil))) == nil,
            "a provider that lists no methods is taken")
        #expect(
            refusal(Self.document(Self.set("token_endpoint", .string("http://id.example.com/token")))).map {
                $0.contains("token_endpoint")
            } == true)
        #expect(refusal(Self.document(Self.set("jwks_uri", .string("https://user@id.example.com/jwks")))) != nil)
        #expect(
            refusal(Self.document(Self.set("response_types_supported", .array([.string("token")])))).map {
                $0.contains("response_type code")
            } == true)
        #expect(refusal(.array([])).map { $0.contains("not a JSON object") } == true)
        let local = try ProviderMetadata(
            document: .object([
                ("issuer", .string("http://127.0.0.1:8080/oidc")),
                ("authorization_endpoint", .string("http://127.0.0.1:8080/oidc/auth")),
                ("token_endpoint", .string("http://localhost:8080/oidc/token")),
                ("jwks_uri", .string("http://[::1]:8080/oidc/jwks")),
            ]),
            expectedIssuer: "http://127.0.0.1:8080/oidc", from: "x")
        #expect(!local.issParameterSupported, "http only on loopback, which is taken")
        // An https issuer may not point at the host's loopback services (issue 36): a required endpoint so is a
        // refusal, an optional one (PAR, device, revocation, sign-out) is not used.
        #expect(
            refusal(Self.document(Self.set("token_endpoint", .string("http://127.0.0.1:9/token")))).map {
                $0.contains("over http while the issuer is https")
            } == true)
        let optional = try ProviderMetadata(
            document: Self.document { members in
                for key in [
                    "pushed_authorization_request_endpoint", "device_authorization_endpoint", "revocation_endpoint",
                    "end_session_endpoint",
                ] {
                    members.append((key, .string("http://127.0.0.1:631/\(key)")))
                }
            }, expectedIssuer: Self.issuer, from: "x")
        #expect(
            optional.pushedAuthorizationRequestEndpoint == nil && optional.deviceAuthorizationEndpoint == nil
                && optional.revocationEndpoint == nil && optional.endSessionEndpoint == nil)
    }

    @Test("discovery URLs: OpenID Connect's appended, then RFC 8414's inserted before the path")
    func discoveryURLs() {
        #expect(
            ProviderMetadata.discoveryURLs(for: "https://id.example.com/realm") == [
                "https://id.example.com/realm/.well-known/openid-configuration",
                "https://id.example.com/.well-known/oauth-authorization-server/realm",
            ])
        #expect(
            ProviderMetadata.discoveryURLs(for: "https://id.example.com/") == [
                "https://id.example.com/.well-known/openid-configuration",
                "https://id.example.com/.well-known/oauth-authorization-server",
            ])
    }

    @Test(
        "token response: tokens with an absolute expiry; the provider's refusal with its error; malformed answers named"
    )
    func tokenResponse() throws {
        let ok = TokenResponse.read(
            status: 200,
            body: .object([
                ("access_token", .string("at")), ("token_type", .string("Bearer")), ("expires_in", .integer(3600)),
                ("refresh_token", .string("rt")), ("id_token", .string("a.b.c")), ("scope", .string("openid email")),
            ]),
            mediaType: "application/json", endpoint: "e", receivedAt: now)
        let tokens = try ok.get()
        #expect(tokens.expiresAt == now + 3600 && tokens.refreshToken == "rt" && tokens.scope == "openid email")
        let refused = TokenResponse.read(
            status: 403,
            body: .object([("error", .string("invalid_code")), ("error_description", .string("Invalid code"))]),
            mediaType: "application/json", endpoint: "e", receivedAt: now)
        guard case .failure(let f) = refused else {
            Issue.record("not refused")
            return
        }
        #expect(
            f.code == .tokenExchangeFailed && f.providerError == "invalid_code" && f.message.contains("Invalid code"))
        #expect(f.httpStatus == 403, "the status goes with the refusal (RefreshRefusal reads it)")
        // An empty refusal (Glewlwyd's answer to a spent refresh token) keeps its status too.
        if case .failure(let empty) = TokenResponse.read(
            status: 400, body: nil, mediaType: nil, endpoint: "e", receivedAt: now)
        {
            #expect(empty.httpStatus == 400 && empty.providerError == nil)
            // Said as a refusal, not as a wrong endpoint (issue 37).
            #expect(
                empty.message.contains("refused the request (HTTP 400") && !empty.message.contains("check the issuer"))
        } else {
            Issue.record("an empty 400 was not a failure")
        }
        // No expires_in: taken to live a short while, never forever.
        let unknownLife = try TokenResponse.read(
            status: 200, body: .object([("access_token", .string("at")), ("token_type", .string("Bearer"))]),
            mediaType: "application/json", endpoint: "e", receivedAt: now
        ).get()
        #expect(unknownLife.expiresAt == now + TokenResponse.assumedLifetime && TokenResponse.assumedLifetime == 300)
        func failure(_ status: Int, _ body: JSONValue?) -> String? {
            if case .failure(let f) = TokenResponse.read(
                status: status, body: body, mediaType: "text/html", endpoint: "e", receivedAt: now)
            {
                return f.message
            }
            return nil
        }
        #expect(failure(200, nil)?.contains("text/html") == true)
        #expect(failure(200, .object([("token_type", .string("Bearer"))]))?.contains("access_token") == true)
        #expect(failure(200, .object([("access_token", .string("at"))]))?.contains("token_type") == true)
        #expect(
            failure(
                200,
                .object([
                    ("access_token", .string("at")), ("token_type", .string("Bearer")), ("expires_in", .string("soon")),
                ]))?.contains("expires_in") == true)
        #expect(
            failure(200, .object([("access_token", .string("a\nt")), ("token_type", .string("Bearer"))])) != nil,
            "a control character in a token")
        #expect(
            failure(400, .object([("error", .string("bad\"quote"))]))?.contains("invalid_response") == true,
            "an error outside the RFC 6749 charset is not echoed")
    }

    static func claims(_ change: (inout [(String, JSONValue)]) -> Void = { _ in }) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("iss", .string(issuer)), ("sub", .string("alice")), ("aud", .string("client")),
            ("exp", .integer(Fixtures.now + 600)), ("iat", .integer(Fixtures.now - 5)), ("nonce", .string("nonce-1")),
        ]
        change(&members)
        return .object(members)
    }

    func rejected(_ claims: JSONValue, nonce: String? = "nonce-1", at time: Int64 = Fixtures.now) -> String? {
        do {
            try IDTokenClaims.check(claims, .init(issuer: Self.issuer, clientID: "client", nonce: nonce), now: time)
        } catch {
            return error.code == .idTokenRejected ? error.message : "wrong code \(error.code)"
        }
        return nil
    }

    @Test("ID-token claims (OpenID Connect Core §3.1.3.7): each check refuses with its own reason")
    func idTokenClaims() throws {
        #expect(
            try IDTokenClaims.check(
                Self.claims(), .init(issuer: Self.issuer, clientID: "client", nonce: "nonce-1"), now: now) == "alice")
        #expect(
            rejected(Self.claims(Self.set("iss", .string("https://evil.example.com"))))?.contains("was issued by")
                == true)
        #expect(rejected(Self.claims(Self.set("aud", .string("other"))))?.contains("not for this client") == true)
        // A subject with a terminal escape in it is no subject (issue 36); display claims are shown escaped.
        #expect(
            rejected(Self.claims(Self.set("sub", .string("alice\u{1b}[2J"))))?.contains("control characters") == true)
        #expect(
            rejected(Self.claims(Self.set("sub", .string("alice\u{9b}31m"))))?.contains("control characters") == true)
        #expect(PrintableText.shown("Eve\u{1b}]0;owned\u{07}\u{7f}") == "Eve\\u{1b}]0;owned\\u{7}\\u{7f}")
        #expect(PrintableText.shown("Zoë Lévy") == "Zoë Lévy")
        #expect(
            rejected(Self.claims(Self.set("aud", .array([.string("client"), .string("other")]))))?.contains("no azp")
                == true)
        #expect(
            rejected(
                Self.claims {
                    $0 =
                        $0.filter { $0.0 != "aud" } + [
                            ("aud", .array([.string("client"), .string("other")])), ("azp", .string("client")),
                        ]
                }) == nil)
        #expect(rejected(Self.claims(Self.set("azp", .string("other"))))?.contains("authorized party") == true)
        #expect(
            rejected(Self.claims(Self.set("exp", .integer(now - IDTokenClaims.clockSkew - 1))))?.contains("expired")
                == true)
        #expect(rejected(Self.claims(Self.set("exp", .integer(now - 60)))) == nil, "within the clock skew")
        #expect(
            rejected(Self.claims(Self.set("iat", .integer(now + IDTokenClaims.clockSkew + 1))))?.contains(
                "in the future") == true)
        #expect(rejected(Self.claims(Self.set("nonce", .string("nonce-2"))))?.contains("another nonce") == true)
        #expect(rejected(Self.claims(Self.set("nonce", nil)))?.contains("has no nonce") == true)
        #expect(rejected(Self.claims(Self.set("nonce", nil)), nonce: nil) == nil, "a refresh sends no nonce")
        #expect(rejected(Self.claims(Self.set("sub", nil)))?.contains("sub") == true)
        #expect(rejected(Self.claims(Self.set("exp", .string("tomorrow"))))?.contains("no exp") == true)
    }

    /// The test issuer's metadata (what `exchangeRequest`'s discovery brings).
    static let metadata = ProviderMetadata(
        issuer: issuer, authorizationEndpoint: issuer + "/auth", tokenEndpoint: issuer + "/token",
        jwksURI: issuer + "/jwks", issParameterSupported: true)

    static func exchangeRequest() -> SessionRequest {
        Fixtures.request {
            $0.authorizationEndpoint = nil
            $0.issuer = issuer
            $0.scope = "openid"
            $0.exchange = true
        }
    }

    @Test(
        "plan: discovery gives the endpoints and requires iss; exchange needs an issuer and the daemon's own verifier")
    func plan() throws {
        #expect(SessionPlan.needsDiscovery(Self.exchangeRequest()))
        #expect(
            !SessionPlan.needsDiscovery(Fixtures.request { $0.issuer = Self.issuer }),
            "an explicit endpoint with no exchange needs no network")
        let s = try Fixtures.session(Self.exchangeRequest())
        #expect(
            s.codeLogin.exchange
                == TokenExchange(
                    clientID: "client", tokenEndpoint: Self.issuer + "/token", jwksURI: Self.issuer + "/jwks",
                    expectsIDToken: true))
        #expect(s.codeLogin.options.requireIssuer && s.codeLogin.issuer == Self.issuer)
        #expect(try Fixtures.authorizeURL(Self.exchangeRequest()).hasPrefix(Self.issuer + "/auth?"))
        func refused(metadata: ProviderMetadata? = Self.metadata, _ change: (inout SessionRequest) -> Void) -> String? {
            var r = Self.exchangeRequest()
            change(&r)
            do { _ = try SessionPlan.make(r, metadata: metadata, owner: Fixtures.caller, limits: Limits()) } catch {
                return error.message
            }
            return nil
        }
        #expect(
            refused(metadata: nil) {
                $0.issuer = nil
                $0.authorizationEndpoint = "https://a.example.com/auth"
            }?.contains("exchange needs the issuer") == true)
        #expect(
            refused { $0.codeChallenge = String(repeating: "A", count: 43) }?.contains("you hold the PKCE verifier")
                == true)
        #expect(refused(metadata: nil) { _ in }?.contains("not fetched") == true)
    }

    /// What the session's code is redeemed with: its exchange plan, nonce and verifier.
    static func redeem(_ s: Session, code: String) -> Operation {
        .code(redeemWork(s, code: code))
    }

    static func redeemWork(_ s: Session, code: String) -> CodeLogin.Work {
        .redeem(
            TokenGrant(
                tokenEndpoint: issuer + "/token", jwksURI: issuer + "/jwks",
                expected: IDTokenClaims.Expected(issuer: issuer, clientID: "client", nonce: s.codeLogin.nonce),
                requiresIDToken: true),
            code: code, redirectURI: "com.example.app:/callback", verifier: s.codeLogin.codeVerifier)
    }

    @Test(
        "exchange as transitions: the code moves the session to exchanging (no waiter answered); tokens complete it and drop the code; a refusal fails it; a late outcome is nothing"
    )
    func transitions() throws {
        var (router, s) = try Fixtures.router(Self.exchangeRequest())
        let (wait, _) = try router.holdWait(s.id)
        let t = router.route(
            "com.example.app:/callback?code=c1&state=\(s.codeLogin.state)&iss=\(PercentEncoding.encode(Self.issuer))",
            source: .link, via: "test", now: now)
        #expect(t.reply == .routed(.completed))
        let exchanging = try #require(t.session)
        #expect(exchanging.status == .exchanging && exchanging.result?.code == "c1")
        let op = try #require(t.started.first)
        #expect(
            t.started == [op] && t.operation(op) == Self.redeem(s, code: "c1")
                && t.core == [.track(op, .login(s.id, idle: false))])
        #expect(
            t.answers.isEmpty && t.effects.contains(.emitStatus(s.id, .exchanging))
                && t.effects.contains(.closeListener(s.id)))
        router.take(t)
        // A second callback with the state is a replay.
        #expect(
            router.decide("com.example.app:/callback?code=c2&state=\(s.codeLogin.state)", source: .link, now: now)
                .refusalCode == .replayed)

        let tokens = TokenSet(
            accessToken: "at", tokenType: "Bearer", expiresAt: now + 60, refreshToken: nil, idToken: "x.y.z", scope: nil
        )
        let done = router.completed(op, .code(.redeemed(.success(tokens))), now: now)
        let completed = try #require(done.session)
        #expect(
            completed.status == .completed && completed.result?.tokens == tokens && completed.result?.code == ""
                && completed.codeLogin.codeVerifier == nil)
        let result = try #require(completed.result)
        #expect(done.answers == [.answer(wait, .waited(.success(result)))] && done.effects.contains(.checkpoint))
        #expect(done.core == [.finish(op), .finish(wait)])
        #expect(done.ifWriteFails == .keepInMemory)
        #expect(router.exchanged(s.id, .success(tokens), now: now).ifWriteFails == .keepInMemory)
        var copy = router
        copy.take(done)
        #expect(
            copy.completed(op, .code(.redeemed(.success(tokens))), now: now) == Transition(),
            "a second outcome changes nothing")
        #expect(copy.exchanged(s.id, .success(tokens), now: now).changes.isEmpty, "a second outcome changes nothing")
        // The result is let go like any other: tokens wiped with it.
        #expect(copy.session(s.id)?.releasingResult().result?.tokens == nil)

        let failed = router.completed(
            op, .code(.redeemed(.failure(SessionFailure(code: .tokenExchangeFailed, message: "refused")))), now: now)
        #expect(
            failed.session?.status == .failed && failed.session?.failure?.code == .tokenExchangeFailed
                && failed.session?.result?.code == "")
        #expect(failed.answers == [.answer(wait, .waited(.failure(RouterError(.tokenExchangeFailed, "refused"))))])

        // Cancelled while exchanging: the outcome that arrives later changes nothing.
        var cancelled = router
        cancelled.take(cancelled.cancel(s.id, by: Fixtures.owner, now: now))
        #expect(
            cancelled.completed(op, .code(.redeemed(.success(tokens))), now: now)
                == Transition(core: [.finish(op)], ifWriteFails: .keepInMemory))

        (router, s) = try Fixtures.router(Self.exchangeRequest())
        #expect(
            router.exchanged(s.id, .success(tokens), now: now).changes.isEmpty, "a pending session takes no outcome")
    }

    @Test(
        "restore: an exchange cut short runs again; tokens that were only in memory are gone, and the session says so")
    func restore() throws {
        var stored = try Fixtures.session(Self.exchangeRequest(), n: 1)
        stored.status = .exchanging
        stored.result = AuthorizationResult(
            code: "c1", state: stored.codeLogin.state, redirectURI: stored.codeLogin.redirect.string, callbackURI: "x",
            issuer: nil, codeVerifier: nil, nonce: nil)
        var collected = try Fixtures.session(Self.exchangeRequest(), n: 2)
        collected.status = .completed
        collected.finishedAt = now
        collected.result = stored.result
        var router = Router()
        let back = router.restore([stored, collected], previousBusID: "bus-1", now: now)
        router.take(back)
        let t = router.completed(
            try #require(back.started.first),
            .restore(.busNames(.success(BusSnapshot(id: "bus-1", names: [Fixtures.owner])))), now: now)
        let redeem = try #require(t.started.first)
        #expect(t.started == [redeem] && t.operation(redeem) == Self.redeem(stored, code: "c1"))
        #expect(t.core.contains(.track(redeem, .login(stored.id, idle: false))))
        let lost = try #require(
            t.changes.compactMap { if case .update(let s) = $0, s.id == collected.id { s } else { nil } }.first)
        #expect(
            lost.status == .failed && lost.failure?.code == .tokenExchangeFailed
                && lost.failure?.message.contains("never written to disk") == true)
        #expect(t.changes.count == 1, "the exchange under way is left as it is")
    }

    @Test(
        "RefreshTokens: refused at once when an option is wrong; else the issuer's metadata, then the refresh, and the held call hears the tokens or why not"
    )
    func refresh() throws {
        var router = Router()
        var request = RefreshRequest()
        request.issuer = Self.issuer
        request.clientID = "client"
        let missing = router.refreshTokens(request, caller: Fixtures.owner)
        #expect(
            missing.refusal
                == RouterError(
                    .invalidArgument, "refresh_token is missing: the refresh token (at most 8 KiB of printable ASCII)"))
        #expect(missing.core.isEmpty && missing.effects.isEmpty)
        request.refreshToken = "rt"
        request.scope = "openid"
        let t = router.refreshTokens(request, caller: Fixtures.owner)
        let op = try #require(t.held)
        #expect(
            t.effects == [.start(op, .refresh(.discover(issuer: Self.issuer)))]
                && t.core == [.track(op, .refresh(RefreshCall(request: request, caller: Fixtures.owner)))])
        #expect(t.changes.isEmpty)
        router.take(t)
        let discovering = router

        let posted = router.completed(op, .refresh(.metadata(.success(Self.metadata))), now: now)
        let grant = TokenGrant(
            tokenEndpoint: Self.issuer + "/token", jwksURI: Self.issuer + "/jwks",
            expected: IDTokenClaims.Expected(issuer: Self.issuer, clientID: "client", nonce: nil),
            requiresIDToken: false)
        #expect(
            posted.effects == [.start(op, .refresh(.refresh(grant, refreshToken: "rt", scope: "openid")))]
                && posted.core.isEmpty
                && posted.answers.isEmpty)
        router.take(posted)

        let tokens = TokenSet(
            accessToken: "at2", tokenType: "Bearer", expiresAt: now + 60, refreshToken: "rt2", idToken: nil,
            scope: "openid")
        #expect(
            router.completed(op, .refresh(.refreshed(.success(tokens))), now: now)
                == Transition(core: [.finish(op)], ifWriteFails: .keepInMemory, effects: [.answer(op, .tokens(tokens))])
        )
        let refusedGrant = router.completed(
            op, .refresh(.refreshed(.failure(SessionFailure(code: .tokenExchangeFailed, message: "invalid_grant")))),
            now: now)
        #expect(
            refusedGrant.answers == [.answer(op, .refused(RouterError(.tokenExchangeFailed, "invalid_grant")))]
                && refusedGrant.core == [.finish(op)])

        let error = RouterError(.discoveryFailed, "no metadata")
        let undiscovered = discovering.completed(op, .refresh(.metadata(.failure(error))), now: now)
        #expect(
            undiscovered.answers == [.answer(op, .refused(error))] && undiscovered.core == [.finish(op)]
                && undiscovered.started.isEmpty)

        // The caller leaving drops the call; the answer that arrives later is nobody's.
        var left = router
        let gone = left.ownerGone(Fixtures.owner, now: now)
        #expect(gone.effects.first == .forget(op) && gone.core == [.finish(op)])
        left.take(gone)
        #expect(left.completed(op, .refresh(.refreshed(.success(tokens))), now: now) == Transition())
    }
}
