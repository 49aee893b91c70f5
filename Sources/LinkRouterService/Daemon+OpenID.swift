import DBusKit
import HTTPKit
import LinkRouterAPI
import LinkRouterCore
import OpenIDConnect
import SystemKit

/// The network half of a login: discovery before `BeginSession` goes on,
/// the code exchange after the callback (`Effect.exchangeCode`), and
/// `RefreshTokens`. Every request runs on the loop through libcurl's multi
/// interface, so a slow provider holds up only the call that needs it.
extension Daemon {
    /// Requests in flight beyond which callers' new ones are refused: a flood
    /// of `BeginSession` with unreachable issuers, or of `RefreshTokens` at a
    /// token endpoint that stalls, must not hold a descriptor a call. (Code
    /// exchanges are not refused: they are bounded by the pending sessions.)
    static let maxHTTPInFlight = 64

    /// Throws `LimitsExceeded` while `maxHTTPInFlight` requests are under way.
    func checkHTTPRoom(_ client: TokenClient) throws(DBusError) {
        guard client.directory.http.inFlight < Self.maxHTTPInFlight else {
            throw DBusError(RouterError(.limitsExceeded, "\(Self.maxHTTPInFlight) requests to providers are already in flight; try again shortly"))
        }
    }

    /// The client, made on first use.
    func tokenClient() throws(RouterError) -> TokenClient {
        if let openIDClient { return openIDClient }
        let http: HTTPClient
        do { http = try HTTPClient(loop: loop) } catch {
            throw RouterError(.internalError, "the daemon cannot make HTTPS requests: \(error.description)")
        }
        let client = TokenClient(directory: ProviderDirectory(http: http, loop: loop, clock: { Clock.unixSeconds() }))
        openIDClient = client
        return client
    }

    /// The issuer's metadata, then `then` with it (at once when cached).
    /// The call is answered from here: `then`'s values, or its error.
    func withMetadata(_ issuer: String, _ call: MethodCall,
                      then: @escaping (ProviderMetadata) throws(DBusError) -> MethodReply) throws(DBusError) -> MethodReply {
        let client: TokenClient
        do throws(RouterError) { client = try tokenClient() } catch { throw DBusError(error) }
        if let cached = client.directory.cachedMetadata(issuer) { return try then(cached) }
        try checkHTTPRoom(client)
        awaitingDiscovery[call.sender, default: 0] += 1
        client.directory.metadata(issuer) { [weak self] result in
            guard let self else { return }
            let left = self.leftDuringDiscovery.contains(call.sender)
            self.awaitingDiscovery[call.sender]! -= 1
            if self.awaitingDiscovery[call.sender] == 0 {
                self.awaitingDiscovery[call.sender] = nil
                self.leftDuringDiscovery.remove(call.sender)
            }
            guard !left else {
                self.log.write(.info, "\(call.sender) left the bus while its issuer's metadata was fetched; nothing was begun")
                return
            }
            do throws(DBusError) {
                let metadata: ProviderMetadata
                switch result {
                case .success(let m): metadata = m
                case .failure(let error):
                    self.log.write(.notice, "Discovery for \(call.sender) failed: \(error.message)")
                    throw DBusError(error)
                }
                if case .values(let values) = try then(metadata) { self.reply(to: call.message, values: values) }
            } catch {
                self.reply(to: call.message, error: error)
            }
        }
        return .deferred
    }

    /// `Effect.exchangeCode`: posts the session's code; the outcome comes back as `Router.exchanged`.
    func startExchange(_ id: SessionID) {
        guard let s = router.session(id), s.status == .exchanging, let exchange = s.exchange, let result = s.result, let issuer = s.issuer else { return }
        let grant = TokenClient.Grant(tokenEndpoint: exchange.tokenEndpoint, jwksURI: exchange.jwksURI,
                                      expected: IDTokenClaims.Expected(issuer: issuer, clientID: exchange.clientID, nonce: s.nonce),
                                      requiresIDToken: exchange.expectsIDToken)
        let client: TokenClient
        do { client = try tokenClient() } catch {
            // Not from inside the executor that is carrying this effect out.
            _ = loop.schedule(afterMilliseconds: 0) { [weak self] in
                self?.finishExchange(id, .failure(SessionFailure(code: .tokenExchangeFailed, message: error.message)))
            }
            return
        }
        client.redeem(code: result.code, redirectURI: result.redirectURI, verifier: s.codeVerifier ?? result.codeVerifier, grant: grant) { [weak self] outcome in
            self?.finishExchange(id, outcome)
        }
    }

    func finishExchange(_ id: SessionID, _ outcome: Result<TokenSet, SessionFailure>) {
        do { try execute(router.exchanged(id, outcome, now: now)) } catch {
            log.write(.error, "Failed to finish the code exchange of session \(id.rawValue.prefix(8)): \(error.message)")
        }
    }
}
