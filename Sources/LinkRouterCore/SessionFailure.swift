/// Why a session ended without a code: what `Wait` answers instead of a result.
public struct SessionFailure: Error, Sendable, Equatable {
    public var code: RouterError.Code
    /// The provider's `error`, when it sent one (within the RFC 6749 charset, else `invalid_response`).
    public var providerError: String?
    /// The provider's `error_description`, charset-checked and truncated; never HTML.
    public var providerDescription: String?
    public var message: String

    public init(
        code: RouterError.Code, providerError: String? = nil, providerDescription: String? = nil, message: String
    ) {
        self.code = code
        self.providerError = providerError
        self.providerDescription = providerDescription
        self.message = message
    }

    public var error: RouterError { RouterError(code, message) }
}
