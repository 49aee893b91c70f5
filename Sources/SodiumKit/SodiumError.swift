/// Why a `crypto_box` step failed, in words for the log and for the client.
public enum SodiumError: Error, Sendable, Equatable, CustomStringConvertible {
    /// libsodium cannot be loaded or initialised.
    case unavailable(String)
    /// Not base64 of the expected length, or a box that does not open (wrong key, altered bytes).
    case malformed(String)

    public var description: String {
        switch self {
        case .unavailable(let why), .malformed(let why): why
        }
    }
}
