import JOSE
import JSONKit
import LinkRouterCore
import OpenSSLKit
import Testing

/// RFC 9449 §8 at the token endpoint (`DPoPRequests` under `TokenClient`): a
/// `use_dpop_nonce` answer is sent again with a new proof carrying the
/// server's `DPoP-Nonce`, at most twice, so a server that asks forever costs
/// three requests and a clear error.
@Suite("OpenIDConnect: DPoP nonces at the token endpoint")
struct DPoPNonceTests {
    static let tokens = #"{"access_token":"at-1","token_type":"DPoP","expires_in":300}"#

    static func askForNonce(_ nonce: String?) -> ScriptedHTTPServer.Response {
        .json(
            400, #"{"error":"use_dpop_nonce","error_description":"Authorization server requires nonce in DPoP proof"}"#,
            headers: nonce.map { [("DPoP-Nonce", $0)] } ?? [])
    }

    /// The claims of a request's `DPoP` proof, after checking its signature with `key`'s public half.
    static func proof(_ request: ScriptedHTTPServer.Request, key: DPoPKey) throws -> JSONValue {
        let jwt = try #require(request.header("DPoP"), "a token request without a DPoP proof")
        let verified = try JWS.verify(jwt, keys: [PublicKey(jwk: key.signingKey().publicJWK)])
        #expect(verified.header["typ"] == .string("dpop+jwt"))
        return try JSONParser.parse(verified.payload)
    }

    @Test("use_dpop_nonce once: one more request, whose proof carries the nonce given; then the tokens")
    func nonceOnce() throws {
        let key = try DPoPKey.generate()
        var calls = 0
        let world = try ProviderWorld { request in
            guard request.path == "/token" else { return .notFound }
            calls += 1
            return calls == 1 ? Self.askForNonce("nonce-from-the-server") : .json(200, Self.tokens)
        }
        let tokens = try world.redeem(world.grant(dpop: key)).get()
        #expect(tokens.accessToken == "at-1")
        #expect(tokens.dpopKey == key)
        let sent = world.server.requests(to: "/token")
        try #require(sent.count == 2, "\(sent.count) token requests")
        let (first, second) = (try Self.proof(sent[0], key: key), try Self.proof(sent[1], key: key))
        #expect(first["nonce"] == nil, "the first proof has a nonce nobody gave")
        #expect(second["nonce"] == .string("nonce-from-the-server"))
        for claims in [first, second] {
            #expect(claims["htm"] == .string("POST"))
            #expect(claims["htu"] == .string(world.issuer + "/token"))
        }
        #expect(first["jti"] != second["jti"], "a proof was sent twice")
        // The same grant both times: the resend is the request, not a new one.
        #expect(sent[0].body == sent[1].body)
    }

    @Test("a server that asks forever, with a new nonce each time, gets three requests and the client's own error")
    func nonceForever() throws {
        let key = try DPoPKey.generate()
        var calls = 0
        let world = try ProviderWorld { request in
            guard request.path == "/token" else { return .notFound }
            calls += 1
            return Self.askForNonce("nonce-\(calls)")
        }
        let outcome = try world.redeem(world.grant(dpop: key))
        let sent = world.server.requests(to: "/token")
        #expect(sent.count == 3)
        guard case .failure(let failure) = outcome else {
            Issue.record("tokens from a server that never took a proof: \(outcome)")
            return
        }
        #expect(failure.code == .tokenExchangeFailed)
        #expect(failure.message.contains("was answered use_dpop_nonce 3 times"), "\(failure.message)")
        // Not the provider's words: the refusal is the client's.
        #expect(failure.providerError == nil)
        // Each resend carried the nonce of the answer before it.
        let nonces = try sent.map { try Self.proof($0, key: key)["nonce"] }
        #expect(nonces == [nil, .string("nonce-1"), .string("nonce-2")])
    }

    @Test("the same nonce asked for again: given up after two requests, not three")
    func sameNonceAgain() throws {
        let key = try DPoPKey.generate()
        let world = try ProviderWorld { request in
            request.path == "/token" ? Self.askForNonce("stuck") : .notFound
        }
        let outcome = try world.redeem(world.grant(dpop: key))
        #expect(world.server.requests(to: "/token").count == 2)
        guard case .failure(let failure) = outcome else {
            Issue.record("tokens from a server that never took a proof: \(outcome)")
            return
        }
        #expect(failure.message.contains("was answered use_dpop_nonce 2 times"), "\(failure.message)")
    }

    @Test("use_dpop_nonce with no DPoP-Nonce header: no resend, an error that says so")
    func noNonceGiven() throws {
        let key = try DPoPKey.generate()
        let world = try ProviderWorld { request in
            request.path == "/token" ? Self.askForNonce(nil) : .notFound
        }
        let outcome = try world.redeem(world.grant(dpop: key))
        #expect(world.server.requests(to: "/token").count == 1)
        guard case .failure(let failure) = outcome else {
            Issue.record("tokens from a server that never took a proof: \(outcome)")
            return
        }
        #expect(failure.message.contains("no usable DPoP-Nonce header"), "\(failure.message)")
    }
}
