import HTTPKit
import JOSE
import JSONKit
import LinkRouterCore
import OpenSSLKit
import SystemKit

/// The token endpoint half of a login (RFC 6749 §4.1.3, §6) for a public
/// client: post the grant, read the answer, verify the ID token against the
/// provider's keys (OpenID Connect Core §3.1.3.7), and hand back tokens only
/// when every check passed. No client secret exists anywhere (RFC 8252 §8.5).
public final class TokenClient {
    public let directory: ProviderDirectory
    /// Requests that prove a DPoP key (a bound login's, an account's refresh, a bound login's push).
    let proofs: DPoPRequests

    /// Token answers are small; a larger one is refused unread.
    static let maxResponseBytes = 256 * 1024

    /// A refresh's whole-request limit (the connect limit stays the default): a provider that rotates refresh tokens
    /// spends the old one when it takes the request, so giving up on a slow answer loses the new one, and the next
    /// refresh would send a spent token. Callers wait on their own deadlines meanwhile (a live token is handed out
    /// with a warning); the stop's drain (`Daemon.stopDrainMilliseconds`) covers it.
    public static let refreshTimeoutMilliseconds = 60_000

    /// `proofClock` gives a proof's `iat`: by default the clock a server's `time()` reads
    /// (`Clock.coarseUnixSeconds`), so a proof is never a second ahead of a server that refuses future proofs.
    public init(directory: ProviderDirectory, proofClock: @escaping () -> Int64 = { Clock.coarseUnixSeconds() }) {
        self.directory = directory
        proofs = DPoPRequests(http: directory.http, clock: proofClock)
    }

    /// What one grant needs besides its own parameters (the core's `TokenGrant`).
    public typealias Grant = TokenGrant

    /// `grant_type=authorization_code`, with the PKCE verifier and `client_id` in the body.
    public func redeem(
        code: String, redirectURI: String, verifier: String?, grant: Grant,
        completion: @escaping (Result<TokenSet, SessionFailure>) -> Void
    ) {
        var form = [
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI),
            ("client_id", grant.expected.clientID),
        ]
        if let verifier { form.append(("code_verifier", verifier)) }
        post(form, grant: grant, completion: completion)
    }

    /// `grant_type=refresh_token` (RFC 6749 §6).
    /// `extra`: the request's other fields (RFC 6749 §6 `scope`, RFC 8707 `resource`, `audience`), after those.
    public func refresh(
        _ refreshToken: String, form extra: [(String, String)], grant: Grant,
        completion: @escaping (Result<TokenSet, SessionFailure>) -> Void
    ) {
        let form =
            [
                ("grant_type", "refresh_token"), ("refresh_token", refreshToken),
                ("client_id", grant.expected.clientID),
            ] + extra
        post(form, grant: grant, timeoutMilliseconds: Self.refreshTimeoutMilliseconds, completion: completion)
    }

    /// RFC 7009 §2.1: the token, its hint, and `client_id` (a public client
    /// authenticates with nothing else). 200 is success, whatever the body
    /// (§2.2: an unknown token is 200 too); anything else says why not.
    public func revoke(_ r: Revocation, endpoint: String, completion: @escaping (RouterError?) -> Void) {
        var request = HTTPRequest.postForm(
            endpoint, [("token", r.token), ("token_type_hint", r.hint), ("client_id", r.clientID)])
        request.maxResponseBytes = Self.maxResponseBytes
        _ = directory.http.send(request) { result in
            switch result {
            case .failure(let error):
                completion(
                    RouterError(
                        .tokenExchangeFailed,
                        "the request to the revocation endpoint at \(error.host) failed: \(error.description)"))
            case .success(let response) where response.status == 200:
                completion(nil)
            case .success(let response):
                let raw = (try? JSONParser.parse(response.body))?["error"]?.stringValue
                let said =
                    raw.map { OAuthText.isErrorText($0) ? ": " + $0 : ": invalid_response" } ?? ", no reason given"
                completion(
                    RouterError(.tokenExchangeFailed, "the revocation endpoint answered HTTP \(response.status)\(said)")
                )
            }
        }
    }

    /// RFC 9126 §2: the authorization request, form-encoded, to the PAR
    /// endpoint; 201 (or 200) with `request_uri` is success. A refusal says
    /// which request failed and what the provider said, if anything (Glewlwyd
    /// answers 403 with an empty body).
    public func push(_ push: PushRequest, completion: @escaping (Result<String, RouterError>) -> Void) {
        var request = HTTPRequest.postForm(push.endpoint, push.parameters.map { ($0.name, $0.value) })
        request.maxResponseBytes = Self.maxResponseBytes
        // A bound login's push proves its key: the code is bound to it (RFC 9449 §10.1).
        proofs.send(request, proving: push.dpop) { outcome in
            let response: HTTPResponse
            switch outcome {
            case .failed(let error):
                return completion(
                    .failure(
                        RouterError(
                            .authorizationFailed, "\(push.logTag) failed: \(error.description); nothing was opened")))
            case .unsigned(let error):
                return completion(
                    .failure(
                        RouterError(
                            .internalError,
                            "\(push.logTag) could not prove the login's DPoP key (\(error.message)); nothing was opened"
                        )))
            case .nonceRefused(let tries):
                return completion(
                    .failure(
                        RouterError(
                            .authorizationFailed, "\(push.logTag) \(Self.nonceRefusal(tries)); nothing was opened")))
            case .nonceMissing:
                return completion(
                    .failure(
                        RouterError(.authorizationFailed, "\(push.logTag) \(Self.nonceMissing); nothing was opened")))
            case .response(let r):
                response = r
            }
            switch response.status {
            case 201, 200:
                let body = try? JSONParser.parse(response.body)
                guard let uri = body?["request_uri"]?.stringValue, !uri.isEmpty, uri.utf8.count <= 2048,
                    OAuthText.isVisibleText(uri)
                else {
                    completion(
                        .failure(
                            RouterError(
                                .authorizationFailed,
                                "\(push.logTag) was answered with no usable request_uri (RFC 9126 §2.2); nothing was opened"
                            )))
                    return
                }
                completion(.success(uri))
            default:
                let body = try? JSONParser.parse(response.body)
                let code = body?["error"]?.stringValue.flatMap { OAuthText.isErrorText($0) ? $0 : nil }
                let description = OAuthText.sanitizedDescription(body?["error_description"]?.stringValue)
                let said =
                    code.map { ": " + $0 + (description.map { ", " + $0 } ?? "") }
                    ?? (response.body.isEmpty ? ", with an empty body" : ", no reason given")
                completion(
                    .failure(
                        RouterError(
                            .authorizationFailed,
                            "\(push.logTag) was refused: HTTP \(response.status)\(said); nothing was opened")))
            }
        }
    }

    /// A server that asked for a DPoP nonce and gave none to use.
    static let nonceMissing =
        "was answered use_dpop_nonce with no usable DPoP-Nonce header (RFC 9449 §8.1: visible ASCII), so no proof could carry one"

    /// Why a request that proves a DPoP key gave up on the server's nonces.
    static func nonceRefusal(_ tries: Int) -> String {
        "was answered use_dpop_nonce \(tries) times, each proof carrying the nonce the answer before gave (RFC 9449 §8); the server takes no proof from linkrouter, so it gave up"
    }

    /// RFC 8628 §3.1: `client_id` and `scope` to the device authorization
    /// endpoint; the answer checked (`DeviceAuthorization`) before any of it is used.
    public func authorizeDevice(
        _ r: DeviceGrant.Request, completion: @escaping (Result<DeviceAuthorization, RouterError>) -> Void
    ) {
        var request = HTTPRequest.postForm(r.endpoint, r.form)
        request.maxResponseBytes = Self.maxResponseBytes
        _ = directory.http.send(request) { result in
            switch result {
            case .failure(let error):
                completion(
                    .failure(
                        RouterError(.authorizationFailed, "\(r.logTag) failed: \(error.description); nothing was shown")
                    ))
            case .success(let response):
                do throws(RouterError) {
                    completion(
                        .success(
                            try DeviceAuthorization(
                                status: response.status, body: try? JSONParser.parse(response.body), request: r)))
                } catch {
                    completion(.failure(error))
                }
            }
        }
    }

    /// RFC 8628 §3.4: one poll with the device code. Pending and `slow_down` come back as
    /// failures carrying the provider's error, for `DeviceGrant.step` to weigh; tokens are
    /// verified as after any grant.
    public func pollDevice(
        _ deviceCode: String, grant: Grant, completion: @escaping (Result<TokenSet, SessionFailure>) -> Void
    ) {
        post(
            [
                ("grant_type", DeviceGrant.grantType), ("device_code", deviceCode),
                ("client_id", grant.expected.clientID),
            ], grant: grant, completion: completion)
    }

    /// `timeoutMilliseconds`: a refresh's own limit; a code's exchange or a device poll keeps the default.
    private func post(
        _ form: [(String, String)], grant: Grant, timeoutMilliseconds: Int? = nil,
        completion: @escaping (Result<TokenSet, SessionFailure>) -> Void
    ) {
        var request = HTTPRequest.postForm(grant.tokenEndpoint, form)
        request.maxResponseBytes = Self.maxResponseBytes
        if let timeoutMilliseconds { request.timeoutMilliseconds = timeoutMilliseconds }
        let refreshing = timeoutMilliseconds != nil
        proofs.send(request, proving: grant.dpop?.key) { [self] outcome in
            func fail(_ message: String, code: RouterError.Code = .tokenExchangeFailed) {
                completion(.failure(SessionFailure(code: code, message: message)))
            }
            switch outcome {
            case .failed(let error):
                // A code is good once: a login whose exchange failed needs a new one. A refresh's tokens are kept
                // (a passing fault); whether the provider may have acted on it is the core's to say.
                var failure = SessionFailure(
                    code: .tokenExchangeFailed,
                    message: "the request to the token endpoint at \(error.host) "
                        + (error.sent && error.code != .tooLarge ? "was sent and not answered: " : "failed: ")
                        + error.description
                        + (refreshing ? "" : "; begin a new login"))
                failure.unanswered = error.sent
                completion(.failure(failure))
            case .unsigned(let error):
                fail(
                    "the daemon could not prove the account's DPoP key (\(error.message)); nothing was asked of the token endpoint",
                    code: .internalError)
            case .nonceRefused(let tries):
                fail("the token endpoint \(Self.nonceRefusal(tries)); no token was handed out")
            case .nonceMissing:
                fail("the token endpoint \(Self.nonceMissing); no token was handed out")
            case .response(let response):
                let body = try? JSONParser.parse(response.body)
                switch TokenResponse.read(
                    status: response.status, body: body, mediaType: response.mediaType, endpoint: grant.tokenEndpoint,
                    receivedAt: response.receivedAt)
                {
                case .failure(let failure):
                    completion(.failure(failure))
                case .success(var tokens):
                    // Proved with this key: the set is bound to it (the core checks `token_type` against
                    // `dpop=require`).
                    if let dpop = grant.dpop { tokens.dpopKey = dpop.key }
                    verify(tokens, grant: grant, completion: completion)
                }
            }
        }
    }

    /// Checks the ID token, fetching the keys (again once, if its `kid` is new).
    private func verify(
        _ tokens: TokenSet, grant: Grant, refreshed: Bool = false,
        completion: @escaping (Result<TokenSet, SessionFailure>) -> Void
    ) {
        guard let idToken = tokens.idToken else {
            if grant.requiresIDToken {
                completion(
                    .failure(
                        SessionFailure(
                            code: .idTokenRejected,
                            message:
                                "the token endpoint returned no id_token although the login asked for openid (OpenID Connect Core §3.1.3.3); no token was handed out"
                        )))
            } else if grant.expected.stepUp != nil {
                // How the person signed in is the ID token's to say: without one, a step-up cannot be checked.
                completion(
                    .failure(
                        SessionFailure(
                            code: .idTokenRejected,
                            message:
                                "the token endpoint returned no id_token, so the sign-in's acr and auth_time that acr_values and max_age asked for cannot be checked; no token was handed out"
                        )))
            } else {
                completion(.success(tokens))
            }
            return
        }
        directory.keys(grant.jwksURI, refresh: refreshed) { [self] keys in
            switch keys {
            case .failure(let error):
                completion(.failure(SessionFailure(code: error.code, message: error.message)))
            case .success(let keys):
                do throws(RouterError) {
                    let payload: [UInt8]
                    do throws(JOSEError) { payload = try JWS.verify(idToken, keys: keys).payload } catch {
                        if error.code == .unknownKeyID && !refreshed {
                            verify(tokens, grant: grant, refreshed: true, completion: completion)
                            return
                        }
                        throw RouterError(
                            .idTokenRejected,
                            "the ID token's signature was refused (\(error.code.rawValue)): \(error.message); no token was handed out"
                        )
                    }
                    let claims: JSONValue
                    do throws(JSONError) { claims = try JSONParser.parse(payload) } catch {
                        throw RouterError(
                            .idTokenRejected, "the ID token's payload is not JSON (\(error)); no token was handed out")
                    }
                    var verified = tokens
                    verified.subject = try IDTokenClaims.check(claims, grant.expected, now: directory.clock())
                    verified.claims = String(decoding: payload, as: UTF8.self)
                    // Display claims a person reads: never a terminal's command (issue 36).
                    verified.name = claims["name"]?.stringValue.map(PrintableText.shown)
                    verified.email = claims["email"]?.stringValue.map(PrintableText.shown)
                    verified.idTokenExpiresAt = claims["exp"]?.int64Value
                    verified.acr = claims["acr"]?.stringValue
                    verified.authTime = claims["auth_time"]?.int64Value
                    completion(.success(verified))
                } catch {
                    completion(.failure(SessionFailure(code: error.code, message: error.message)))
                }
            }
        }
    }
}
