import Testing

@testable import LinkRouterCore

/// A resource server's challenge as `linkctl fetch` reads it (RFC 6750 §3,
/// RFC 9110 §11.6.1, RFC 9728 §5.1, RFC 9470 §3) and what it answers with.
@Suite("Bearer challenges and their answers")
struct BearerChallengeTests {
    @Test(
        "parsed: quoted and bare values, escapes, case-insensitive scheme and names, other schemes before and after, several fields; a malformed or huge value is no challenge"
    )
    func parsing() {
        let c = BearerChallenge.parse([
            #"Basic realm="x", bearer Error="insufficient_scope", scope="openid mcp:write", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", error_description="needs \"write\"", DPoP algs="ES256""#
        ])
        #expect(c?.error == "insufficient_scope" && c?.scope == "openid mcp:write")
        #expect(c?.resourceMetadata == "https://mcp.example.com/.well-known/oauth-protected-resource/mcp")
        #expect(c?.errorDescription == #"needs "write""#)
        let step = BearerChallenge.parse([
            "DPoP algs=ES256", #"Bearer error="insufficient_user_authentication", acr_values="urn:mfa", max_age=5"#,
        ])
        #expect(step?.acrValues == "urn:mfa" && step?.maxAge == 5)
        #expect(BearerChallenge.parse(["Bearer"]) == BearerChallenge())
        #expect(BearerChallenge.parse(["Basic realm=x"]) == nil)
        #expect(BearerChallenge.parse([]) == nil)
        #expect(BearerChallenge.parse([#"Bearer error="invalid_token"#])?.error == nil, "an unterminated string")
        #expect(BearerChallenge.parse(["Bearer error=" + String(repeating: "a", count: 9000)]) == nil)
        #expect(BearerChallenge.parse([#"Bearer max_age=-1, scope="a\"b""#])?.maxAge == nil)
    }

    @Test(
        "answered once: invalid_token (or no error) refreshes, insufficient_scope widens to the union (none when already held or unnamed), a step-up carries acr_values and max_age, anything else stands"
    )
    func answers() {
        func challenge(_ error: String?, scope: String? = nil) -> BearerChallenge {
            var c = BearerChallenge()
            c.error = error
            c.scope = scope
            return c
        }
        #expect(ChallengeAnswer.to(challenge("invalid_token"), held: "openid") == .refresh)
        #expect(ChallengeAnswer.to(challenge(nil), held: "openid") == .refresh)
        #expect(
            ChallengeAnswer.to(challenge("insufficient_scope", scope: "mcp:write openid"), held: "openid")
                == .widen(scope: "openid mcp:write"))
        #expect(ChallengeAnswer.to(challenge("insufficient_scope", scope: "openid"), held: "openid") != .refresh)
        if case .widen = ChallengeAnswer.to(challenge("insufficient_scope"), held: "openid") {
            Issue.record("widened to nothing named")
        }
        var step = challenge("insufficient_user_authentication")
        step.acrValues = "urn:mfa"
        step.maxAge = 0
        #expect(ChallengeAnswer.to(step, held: nil) == .stepUp(acrValues: "urn:mfa", maxAge: 0))
        #expect(
            ChallengeAnswer.to(challenge("invalid_request"), held: nil) == .none("the server answered invalid_request"))
        #expect(ChallengeAnswer.to(nil, held: nil) == .none("the server sent no Bearer challenge"))
    }
}
