/// Why the keyring could not be used, in the words a person needs to fix it.
/// "Locked" and "no keyring" are never "not found": a broker that took them
/// for "not signed in" would start a new login or overwrite what is kept.
public enum SecretError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No Secret Service answers on the session bus.
    case noService(String)
    /// The default collection is locked.
    case locked
    /// The Secret Service has no collection behind the `default` alias.
    case noDefaultCollection
    /// The call did not finish in time (a prompt nobody answered, a provider that hangs).
    case timedOut(milliseconds: Int64)
    /// libsecret cannot be loaded.
    case unavailable(String)
    /// Anything else the Secret Service or libsecret said.
    case failed(String)

    public var description: String {
        switch self {
        case .noService(let why):
            "no Secret Service on the session bus (\(why)); install and start one (gnome-keyring, KeePassXC with Secret Service enabled, KWallet), or declare the account with store=memory (linkctl account add NAME … --store memory), whose tokens last until linkrouterd stops"
        case .locked:
            "the keyring's default collection is locked; unlock it (log in to the desktop session, or open your keyring manager) and try again"
        case .noDefaultCollection:
            "the Secret Service has no default collection; create one (gnome-keyring creates it at desktop login; in KeePassXC, expose a group through Secret Service integration), or declare the account with store=memory (linkctl account add NAME … --store memory), whose tokens last until linkrouterd stops"
        case .timedOut(let ms):
            "the Secret Service did not answer within \(ms / 1000) s (an unlock prompt may be waiting)"
        case .unavailable(let why): why
        case .failed(let why): "the Secret Service refused: \(why)"
        }
    }
}
