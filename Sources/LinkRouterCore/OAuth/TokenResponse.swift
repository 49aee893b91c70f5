/// Reads a token endpoint's answer (RFC 6749 §5.1 and §5.2) into tokens or
/// into the failure the session ends with. The ID token inside is checked
/// afterwards (`IDTokenClaims`), after its signature.
public enum TokenResponse {
    /// How long an access token is taken to live when the answer gives no `expires_in`: five minutes, short enough that
    /// a token of unknown life is refreshed long before most providers' end it (an hour is usual), never "forever".
    public static let assumedLifetime: Int64 = 300

    /// `status` and the parsed body (nil when it was not JSON, with `mediaType` saying what it was).
    public static func read(status: Int, body: JSONValue?, mediaType: String?, endpoint: String, receivedAt: Int64)
        -> Result<TokenSet, SessionFailure>
    {
        func failure(_ message: String, error: String? = nil, description: String? = nil) -> Result<
            TokenSet, SessionFailure
        > {
            .failure(
                SessionFailure(
                    code: .tokenExchangeFailed, providerError: error, providerDescription: description,
                    message: message,
                    httpStatus: status == 200 ? nil : status))
        }
        guard let body, case .object = body else {
            // An empty or non-JSON 4xx (Glewlwyd's answer to a spent refresh token) is a refusal, not a wrong endpoint.
            if (400..<500).contains(status), status != 408, status != 429 {
                return failure("the token endpoint refused the request (HTTP \(status), no error given)")
            }
            return failure(
                "the token endpoint \(endpoint) answered HTTP \(status) with \(mediaType ?? "no content type"), not a JSON object; check the issuer and its token endpoint"
            )
        }
        guard status == 200 else {
            // RFC 6749 §5.2: 400 (401 for client authentication); Glewlwyd answers 403 invalid_code.
            let raw = body["error"]?.stringValue
            let error = raw.map { OAuthText.isErrorText($0) ? $0 : "invalid_response" }
            let description = OAuthText.sanitizedDescription(body["error_description"]?.stringValue)
            var message = "the token endpoint refused the request (HTTP \(status)"
            message += error.map { ": \($0)" } ?? ""
            message += description.map { ", \($0)" } ?? ""
            message += "); begin a new login"
            return failure(message, error: error, description: description)
        }
        guard let access = body["access_token"]?.stringValue, !access.isEmpty, OAuthText.isVisibleText(access) else {
            return failure("the token endpoint's answer has no usable access_token")
        }
        guard let type = body["token_type"]?.stringValue, OAuthText.isVisibleText(type) else {
            return failure("the token endpoint's answer has no token_type (RFC 6749 §5.1)")
        }
        // No `expires_in` (RFC 6749 §5.1 only recommends it): the token is taken to live `assumedLifetime`, never
        // forever,
        // so an account refreshes it in time instead of handing out a dead one.
        var expiresAt = receivedAt + assumedLifetime
        if let expires = body["expires_in"] {
            guard let seconds = expires.int64Value, seconds >= 0, seconds < 10 * 365 * 86_400 else {
                return failure("the token endpoint's expires_in is not a number of seconds")
            }
            expiresAt = receivedAt + seconds
        }
        func optional(_ key: String) -> Result<String?, SessionFailure> {
            guard let v = body[key], v != .null else { return .success(nil) }
            guard let s = v.stringValue, OAuthText.isVisibleText(s) || (key == "scope" && OAuthText.isScope(s)) else {
                return .failure(
                    SessionFailure(
                        code: .tokenExchangeFailed,
                        message: "the token endpoint's \(key) is not a string of printable ASCII"))
            }
            return .success(s)
        }
        do {
            let refresh = try optional("refresh_token").get()
            let idToken = try optional("id_token").get()
            let scope = try optional("scope").get()
            return .success(
                TokenSet(
                    accessToken: access, tokenType: type, expiresAt: expiresAt, refreshToken: refresh,
                    idToken: idToken, scope: scope))
        } catch {
            return .failure(error)
        }
    }
}
