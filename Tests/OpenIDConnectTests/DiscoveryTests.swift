import LinkRouterCore
import Testing

/// `ProviderDirectory.metadata`: OpenID Connect Discovery's
/// `ISSUER/.well-known/openid-configuration` first, and on 404 RFC 8414's
/// `/.well-known/oauth-authorization-server` inserted before the issuer's
/// path; a document whose `issuer` is not the one asked for is refused
/// (Discovery §4.3, RFC 8414 §3.3: the mix-up defence).
@Suite("OpenIDConnect: discovery")
struct DiscoveryTests {
    static let openID = "/tenant/a/.well-known/openid-configuration"
    static let oauth = "/.well-known/oauth-authorization-server/tenant/a"

    /// A metadata document naming `issuer`, its endpoints on `base`.
    static func document(issuer: String, base: String) -> ScriptedHTTPServer.Response {
        .json(
            200,
            #"{"issuer":"\#(issuer)","authorization_endpoint":"\#(base)/authorize","token_endpoint":"\#(base)/token","#
                + #""jwks_uri":"\#(base)/jwks","response_types_supported":["code"],"#
                + #""code_challenge_methods_supported":["S256"]}"#)
    }

    @Test("no openid-configuration (404): the oauth-authorization-server document is found and used, then kept")
    func fallback() throws {
        var base = ""
        let world = try ProviderWorld { request in
            request.path == Self.oauth ? Self.document(issuer: base + "/tenant/a", base: base) : .notFound
        }
        base = world.issuer
        let issuer = base + "/tenant/a"
        let metadata = try world.run { done in world.directory.metadata(issuer) { done($0) } }.get()
        #expect(metadata.issuer == issuer)
        #expect(metadata.tokenEndpoint == base + "/token")
        #expect(metadata.jwksURI == base + "/jwks")
        #expect(world.server.requests.map(\.path) == [Self.openID, Self.oauth])
        #expect(world.directory.cachedMetadata(issuer) == metadata)
    }

    @Test(
        "a document naming another issuer is refused, where either place serves it",
        arguments: [DiscoveryTests.openID, DiscoveryTests.oauth])
    func otherIssuer(_ place: String) throws {
        var base = ""
        let world = try ProviderWorld { request in
            request.path == place ? Self.document(issuer: base + "/tenant/b", base: base) : .notFound
        }
        base = world.issuer
        let issuer = base + "/tenant/a"
        let outcome = try world.run { done in world.directory.metadata(issuer) { done($0) } }
        guard case .failure(let error) = outcome else {
            Issue.record("metadata of another issuer was used: \(outcome)")
            return
        }
        #expect(error.code == .discoveryFailed)
        #expect(
            error.message.contains(#"names the issuer "\#(base)/tenant/b", not the one asked for"#), "\(error.message)")
        // A document that came (200) ends the search: only a 404 moves on to RFC 8414's place.
        let expected = place == Self.openID ? [Self.openID] : [Self.openID, Self.oauth]
        #expect(world.server.requests.map(\.path) == expected)
        #expect(world.directory.cachedMetadata(issuer) == nil)
    }

    @Test(
        "an answer other than 404 or 410 (an error, a redirect) at openid-configuration ends the search there",
        arguments: [500, 403, 302])
    func otherStatus(_ status: Int) throws {
        var base = ""
        let world = try ProviderWorld { request in
            switch request.path {
            case Self.openID: return .json(status, #"{"error":"server_error"}"#, headers: [("Location", "/elsewhere")])
            case Self.oauth: return Self.document(issuer: base + "/tenant/a", base: base)
            default: return .notFound
            }
        }
        base = world.issuer
        let outcome = try world.run { done in world.directory.metadata(base + "/tenant/a") { done($0) } }
        guard case .failure(let error) = outcome else {
            Issue.record("discovery went past an HTTP \(status): \(outcome)")
            return
        }
        #expect(error.code == .discoveryFailed)
        #expect(error.message.contains("answered HTTP \(status)"), "\(error.message)")
        #expect(world.server.requests.map(\.path) == [Self.openID])
    }
}
