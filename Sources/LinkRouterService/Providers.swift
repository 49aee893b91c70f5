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

    /// Whose request it is, and so how much of `maxInFlight` it may use.
    enum Room {
        /// Anything any bus client can ask for (a begin's discovery, push or device authorization, a device poll,
        /// `RefreshTokens`): all but `reservedForAccounts`.
        case anyCaller
        /// An account's flight or revocation: the whole of `maxInFlight`, so callers with no account cannot starve
        /// the accounts' refreshes (which would then back off as if their provider were down).
        case account

        var limit: Int {
            self == .account ? Providers.maxInFlight : Providers.maxInFlight - Providers.reservedForAccounts
        }
    }

    /// Requests only accounts' flights and revocations may make.
    static let reservedForAccounts = 16

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

    /// The client, when another request to a provider has room (`Room.limit`).
    private func clientWithRoom(_ room: Room) throws(RouterError) -> TokenClient {
        let client = try tokenClient()
        guard client.directory.http.inFlight < room.limit else {
            throw RouterError(
                .limitsExceeded, "\(room.limit) requests to providers are already in flight; try again shortly")
        }
        return client
    }

    /// A discovery: at once when cached.
    func discover(
        _ issuer: String, room: Room = .anyCaller,
        _ completion: @escaping (Result<ProviderMetadata, RouterError>) -> Void
    ) {
        do throws(RouterError) {
            if let cached = try tokenClient().directory.cachedMetadata(issuer) { return completion(.success(cached)) }
            try clientWithRoom(room).directory.metadata(issuer, completion: completion)
        } catch {
            completion(.failure(error))
        }
    }

    /// A code exchange.
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

    /// A revocation (accounts only).
    func revoke(_ r: Revocation, endpoint: String, _ completion: @escaping (RouterError?) -> Void) {
        do throws(RouterError) {
            let c = try clientWithRoom(.account)
            c.revoke(r, endpoint: endpoint, completion: completion)
        } catch {
            completion(error)
        }
    }

    /// A client's registration (RFC 7591): any caller's room, as a begin's discovery.
    func register(
        _ request: ClientRegistrationRequest, _ completion: @escaping (Result<RegistrationAnswer, RouterError>) -> Void
    ) {
        do throws(RouterError) {
            try clientWithRoom(.anyCaller).register(request, completion: completion)
        } catch {
            completion(.failure(error))
        }
    }

    /// A registered client deleted (RFC 7592): an account's room, as its revocation.
    func deleteRegistration(_ credentials: RegistrationCredentials, _ completion: @escaping (RouterError?) -> Void) {
        do throws(RouterError) {
            try clientWithRoom(.account).deleteRegistration(credentials, completion: completion)
        } catch {
            completion(error)
        }
    }

    /// A protected resource's metadata (RFC 9728): cached, or fetched from `url` with any caller's room.
    func resourceMetadata(
        _ resource: String, at url: String, _ completion: @escaping (Result<ProtectedResource, RouterError>) -> Void
    ) {
        do throws(RouterError) {
            try clientWithRoom(.anyCaller).directory.resourceMetadata(resource, at: url, completion: completion)
        } catch {
            completion(.failure(error))
        }
    }

    /// A pushed authorization request.
    func push(_ request: PushRequest, _ completion: @escaping (Result<String, RouterError>) -> Void) {
        do throws(RouterError) {
            let c = try clientWithRoom(.anyCaller)
            c.push(request, completion: completion)
        } catch {
            completion(.failure(error))
        }
    }

    /// A device authorization.
    func authorizeDevice(
        _ request: DeviceGrant.Request, _ completion: @escaping (Result<DeviceAuthorization, RouterError>) -> Void
    ) {
        do throws(RouterError) {
            let c = try clientWithRoom(.anyCaller)
            c.authorizeDevice(request, completion: completion)
        } catch {
            completion(.failure(error))
        }
    }

    /// A device poll.
    func pollDevice(
        _ grant: TokenGrant, deviceCode: String, _ completion: @escaping (Result<TokenSet, SessionFailure>) -> Void
    ) {
        do throws(RouterError) {
            let c = try clientWithRoom(.anyCaller)
            devicePolls += 1
            c.pollDevice(deviceCode, grant: grant, completion: completion)
        } catch {
            // No room now is not the end of the grant: the provider never saw this poll.
            completion(
                .failure(
                    SessionFailure(code: error.code, providerError: "authorization_pending", message: error.message)))
        }
    }

    /// A refresh: an account's flight (`room: .account`) or a session's `RefreshTokens`.
    func refresh(
        _ grant: TokenGrant, refreshToken: String, form: [(String, String)], room: Room,
        _ completion: @escaping (Result<TokenSet, SessionFailure>) -> Void
    ) {
        do throws(RouterError) {
            let c = try clientWithRoom(room)
            refreshes += 1
            c.refresh(refreshToken, form: form, grant: grant, completion: completion)
        } catch {
            completion(.failure(SessionFailure(code: error.code, message: error.message)))
        }
    }
}
