import HTTPKit
import LinkRouterAPI
import LinkRouterCore
import OpenIDConnect
import SystemKit

/// The providers component: the OpenID Connect client (issuers' metadata
/// and keys, cached; the token endpoint), made on first use so libcurl loads
/// only when a login needs it. Every request runs on the loop through
/// libcurl's multi interface, so a slow provider holds up only what needs it.
final class Providers {
    let loop: EventLoop
    private var client: TokenClient?
    /// Refresh requests sent to token endpoints (`Counters`: `token_refreshes`), so one refresh for many callers can be
    /// seen.
    private(set) var refreshes: UInt64 = 0
    /// Device-grant polls sent to token endpoints (`Counters`: `device_polls`), so the polling's pace can be seen.
    private(set) var devicePolls: UInt64 = 0

    /// Requests in flight beyond which new discoveries and refreshes are
    /// refused: a flood of `BeginSession` with unreachable issuers, or of
    /// `RefreshTokens` at a token endpoint that stalls, must not hold a
    /// descriptor a call. (Code exchanges are not refused: the pending
    /// sessions bound them.)
    static let maxInFlight = 64

    init(loop: EventLoop) { self.loop = loop }

    func tokenClient() throws(RouterError) -> TokenClient {
        if let client { return client }
        let http: HTTPClient
        do { http = try HTTPClient(loop: loop, userAgent: "linkrouterd/\(API.version)") } catch {
            throw RouterError(.internalError, "the daemon cannot make HTTPS requests: \(error.description)")
        }
        let made = TokenClient(directory: ProviderDirectory(http: http, loop: loop, clock: { Clock.unixSeconds() }))
        client = made
        return made
    }

    /// The client, when another request to a provider has room (`maxInFlight`).
    private func clientWithRoom() throws(RouterError) -> TokenClient {
        let client = try tokenClient()
        guard client.directory.http.inFlight < Self.maxInFlight else {
            throw RouterError(
                .limitsExceeded, "\(Self.maxInFlight) requests to providers are already in flight; try again shortly")
        }
        return client
    }

    /// `Operation.discover`: at once when cached.
    func discover(_ issuer: String, _ completion: @escaping (Result<ProviderMetadata, RouterError>) -> Void) {
        do throws(RouterError) {
            if let cached = try tokenClient().directory.cachedMetadata(issuer) { return completion(.success(cached)) }
            try clientWithRoom().directory.metadata(issuer, completion: completion)
        } catch {
            completion(.failure(error))
        }
    }

    /// `Operation.redeem`.
    func redeem(
        _ grant: TokenGrant, code: String, redirectURI: String, verifier: String?,
        _ completion: @escaping (Result<TokenSet, SessionFailure>) -> Void
    ) {
        do throws(RouterError) {
            try tokenClient().redeem(
                code: code, redirectURI: redirectURI, verifier: verifier, grant: grant, completion: completion)
        } catch {
            completion(.failure(SessionFailure(code: .tokenExchangeFailed, message: error.message)))
        }
    }

    /// `Operation.revoke`.
    func revoke(_ r: Revocation, endpoint: String, _ completion: @escaping (RouterError?) -> Void) {
        do throws(RouterError) {
            let c = try clientWithRoom()
            c.revoke(r, endpoint: endpoint, completion: completion)
        } catch {
            completion(error)
        }
    }

    /// `Operation.push`.
    func push(_ request: PushRequest, _ completion: @escaping (Result<String, RouterError>) -> Void) {
        do throws(RouterError) {
            let c = try clientWithRoom()
            c.push(request, completion: completion)
        } catch {
            completion(.failure(error))
        }
    }

    /// `Operation.authorizeDevice`.
    func authorizeDevice(
        _ request: DeviceGrant.Request, _ completion: @escaping (Result<DeviceAuthorization, RouterError>) -> Void
    ) {
        do throws(RouterError) {
            let c = try clientWithRoom()
            c.authorizeDevice(request, completion: completion)
        } catch {
            completion(.failure(error))
        }
    }

    /// `Operation.pollDevice`.
    func pollDevice(
        _ grant: TokenGrant, deviceCode: String, _ completion: @escaping (Result<TokenSet, SessionFailure>) -> Void
    ) {
        do throws(RouterError) {
            let c = try clientWithRoom()
            devicePolls += 1
            c.pollDevice(deviceCode, grant: grant, completion: completion)
        } catch {
            // No room now is not the end of the grant: the provider never saw this poll.
            completion(
                .failure(
                    SessionFailure(code: error.code, providerError: "authorization_pending", message: error.message)))
        }
    }

    /// `Operation.refresh`.
    func refresh(
        _ grant: TokenGrant, refreshToken: String, scope: String?,
        _ completion: @escaping (Result<TokenSet, SessionFailure>) -> Void
    ) {
        do throws(RouterError) {
            let c = try clientWithRoom()
            refreshes += 1
            c.refresh(refreshToken, scope: scope, grant: grant, completion: completion)
        } catch {
            completion(.failure(SessionFailure(code: error.code, message: error.message)))
        }
    }
}
