/// Why a session ended without a code: what `Wait` answers instead of a result.
public struct SessionFailure: Error, Sendable, Equatable {
    public var code: RouterError.Code
    /// The provider's `error`, when it sent one (within the RFC 6749 charset, else `invalid_response`).
    public var providerError: String?
    /// The provider's `error_description`, charset-checked and truncated; never HTML.
    public var providerDescription: String?
    public var message: String
    /// The HTTP status the provider answered with, when it answered other than 200 (nil when it was not reached, or
    /// the failure is the daemon's own): what tells a refusal of a refresh token from a passing fault
    /// (`RefreshRefusal`).
    public var httpStatus: Int?
    /// The request went out and no answer came (the whole-request limit passed, or the connection broke after it was
    /// sent): the provider may have acted on it, and one that rotates refresh tokens has then spent the one sent.
    public var unanswered = false

    public init(
        code: RouterError.Code, providerError: String? = nil, providerDescription: String? = nil, message: String,
        httpStatus: Int? = nil
    ) {
        self.code = code
        self.providerError = providerError
        self.providerDescription = providerDescription
        self.message = message
        self.httpStatus = httpStatus
    }

    public var error: RouterError { RouterError(code, message) }
}
