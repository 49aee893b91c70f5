import JSONKit
import LinkRouterCore
import SystemKit
import Testing

/// A step-up sign-in's tokens as `TokenClient` verifies them (RFC 9470): the
/// ID token's `acr` and `auth_time` checked against what the login asked for
/// and kept on the verified set; an answer with no ID token refused, since
/// nothing else says how the person signed in.
@Suite("OpenIDConnect: a step-up sign-in's ID token")
struct StepUpVerificationTests {
    /// A provider whose token endpoint answers `answer(signer, issuer)`.
    static func world(_ answer: @escaping (TestSigner, String) throws -> String) throws -> ProviderWorld {
        let signer = try TestSigner(kid: "k")
        var issuer = ""
        let world = try ProviderWorld { request in
            switch request.path {
            case "/jwks": return .json(200, TestSigner.jwks([signer]))
            case "/token": return (try? .json(200, answer(signer, issuer))) ?? .notFound
            default: return .notFound
            }
        }
        issuer = world.issuer
        return world
    }

    static func signed(_ extra: [(String, JSONValue)], by signer: TestSigner, issuer: String) throws -> String {
        let idToken = try signer.sign(TestSigner.claims(issuer: issuer) + extra)
        return #"{"access_token":"at-1","token_type":"Bearer","expires_in":300,"id_token":"\#(idToken)"}"#
    }

    static func grant(_ world: ProviderWorld) -> TokenGrant {
        var grant = world.grant()
        grant.expected.stepUp = StepUp(acrValues: ["urn:mfa"], maxAge: 600)
        return grant
    }

    @Test("an ID token of the class asked, that recent: verified, with its acr and auth_time on the set")
    func met() throws {
        let now = Clock.unixSeconds()
        let world = try Self.world { signer, issuer in
            try Self.signed(
                [("acr", .string("urn:mfa")), ("auth_time", .integer(now - 5))], by: signer, issuer: issuer)
        }
        let tokens = try world.redeem(Self.grant(world)).get()
        #expect(tokens.acr == "urn:mfa" && tokens.authTime == now - 5)
    }

    @Test("another class, an old auth_time, or no ID token at all: IDTokenRejected, no token handed out")
    func refused() throws {
        let now = Clock.unixSeconds()
        for (claims, words) in [
            ([("acr", JSONValue.string("urn:pwd")), ("auth_time", .integer(now))], "not one of urn:mfa"),
            ([("acr", .string("urn:mfa")), ("auth_time", .integer(0))], "more than max_age 600 s"),
        ] {
            let world = try Self.world { signer, issuer in try Self.signed(claims, by: signer, issuer: issuer) }
            guard case .failure(let f) = try world.redeem(Self.grant(world)) else {
                Issue.record("accepted: \(words)")
                continue
            }
            #expect(f.code == .idTokenRejected && f.message.contains(words), "\(f.message)")
        }
        let bare = try Self.world { _, _ in #"{"access_token":"at-1","token_type":"Bearer","expires_in":300}"# }
        guard case .failure(let f) = try bare.redeem(Self.grant(bare)) else {
            Issue.record("a step-up's answer without an ID token was accepted")
            return
        }
        #expect(f.code == .idTokenRejected && f.message.contains("returned no id_token"), "\(f.message)")
    }
}
