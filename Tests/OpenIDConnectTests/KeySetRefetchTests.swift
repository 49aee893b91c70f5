import JSONKit
import LinkRouterCore
import Testing

/// An ID token whose `kid` is not in the provider's key set as the daemon has
/// it makes `TokenClient` fetch the set again, once (keys rotate); a `kid`
/// that is in neither answer is refused, and no token is handed out.
@Suite("OpenIDConnect: the JWKS fetched again for an unknown kid")
struct KeySetRefetchTests {
    /// A token answer with an ID token `signer` signed.
    static func tokens(_ signer: TestSigner, issuer: String) throws -> ScriptedHTTPServer.Response {
        let idToken = try signer.sign(TestSigner.claims(issuer: issuer))
        return .json(200, #"{"access_token":"at-1","token_type":"Bearer","expires_in":300,"id_token":"\#(idToken)"}"#)
    }

    @Test("a kid the first key set lacks: fetched again, found there, the token verified; the new set is kept")
    func rotated() throws {
        let (old, new) = (try TestSigner(kid: "old"), try TestSigner(kid: "new"))
        var issuer = ""
        var keySets = 0
        let world = try ProviderWorld { request in
            switch request.path {
            case "/jwks":
                keySets += 1
                // The provider rotated between the two fetches.
                return .json(200, TestSigner.jwks(keySets == 1 ? [old] : [old, new]))
            case "/token": return (try? Self.tokens(new, issuer: issuer)) ?? .notFound
            default: return .notFound
            }
        }
        issuer = world.issuer
        // The key set as the daemon had it before the provider rotated.
        let before = try world.run { done in world.directory.keys(world.issuer + "/jwks") { done($0) } }
        #expect(try before.get().map(\.keyID) == ["old"])
        let tokens = try world.redeem(world.grant(requiresIDToken: true)).get()
        #expect(tokens.subject == "alice")
        #expect(world.server.requests(to: "/jwks").count == 2)
        // The set fetched again is the one kept: the next token with that kid needs no fetch.
        _ = try world.redeem(world.grant(requiresIDToken: true)).get()
        #expect(world.server.requests(to: "/jwks").count == 2)
    }

    @Test("a kid in neither answer: fetched again once, then refused; no token handed out")
    func unknownEverywhere() throws {
        let (old, stranger) = (try TestSigner(kid: "old"), try TestSigner(kid: "stranger"))
        var issuer = ""
        let world = try ProviderWorld { request in
            switch request.path {
            case "/jwks": return .json(200, TestSigner.jwks([old]))
            case "/token": return (try? Self.tokens(stranger, issuer: issuer)) ?? .notFound
            default: return .notFound
            }
        }
        issuer = world.issuer
        let outcome = try world.redeem(world.grant(requiresIDToken: true))
        #expect(world.server.requests(to: "/jwks").count == 2)
        guard case .failure(let failure) = outcome else {
            Issue.record("tokens whose ID token no key of the provider's signed: \(outcome)")
            return
        }
        #expect(failure.code == .idTokenRejected)
        #expect(failure.message.contains(#"no key has kid "stranger""#), "\(failure.message)")
    }
}
