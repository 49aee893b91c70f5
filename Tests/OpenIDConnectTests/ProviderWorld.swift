import HTTPKit
import LinkRouterCore
import LoopTesting
import OpenIDConnect
import SystemKit
import Testing

/// One test's provider and client, on one loop: a scripted server standing in
/// for the provider (issuer `server.base`), and the daemon's own
/// `ProviderDirectory` and `TokenClient` over a real `HTTPClient`.
final class ProviderWorld {
    let loop = EventLoop()
    let server: ScriptedHTTPServer
    let directory: ProviderDirectory
    let tokens: TokenClient
    static let clientID = "demo"
    static let nonce = "the-session-nonce"

    init(handler: @escaping (ScriptedHTTPServer.Request) -> ScriptedHTTPServer.Response) throws {
        server = try ScriptedHTTPServer(loop: loop, handler: handler)
        let http = try HTTPClient(loop: loop, userAgent: "linkrouter-test/1", caFile: nil)
        directory = ProviderDirectory(http: http, loop: loop, clock: { Clock.unixSeconds() })
        tokens = TokenClient(directory: directory)
    }

    var issuer: String { server.base }

    /// A code grant at this server's `/token`, its ID token checked against `/jwks`.
    func grant(dpop: DPoPKey? = nil, requiresIDToken: Bool = false) -> TokenGrant {
        TokenGrant(
            tokenEndpoint: issuer + "/token", jwksURI: issuer + "/jwks",
            expected: .init(issuer: issuer, clientID: Self.clientID, nonce: Self.nonce),
            requiresIDToken: requiresIDToken, dpop: dpop.map { DPoPBinding(key: $0, required: false) })
    }

    /// Redeems a code with `grant`, turning the loop until the answer.
    func redeem(_ grant: TokenGrant) throws -> Result<TokenSet, SessionFailure> {
        try run { done in
            tokens.redeem(code: "the-code", redirectURI: "com.example.app:/callback", verifier: "v", grant: grant) {
                done($0)
            }
        }
    }

    /// Starts something that completes on the loop, and turns the loop until it has.
    func run<T>(_ start: (@escaping (T) -> Void) -> Void) throws -> T {
        var outcome: T?
        start { outcome = $0 }
        try #require(outcome == nil, "completed inside the call, not from the loop")
        try #require(loop.turn(until: { outcome != nil }), "no completion within 10 s")
        return try #require(outcome)
    }
}
