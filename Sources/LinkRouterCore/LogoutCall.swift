/// A `Logout` (or the first half of a `BeginLogout`): the account's tokens
/// forgotten, in memory at once (`AccountBook.logout`) and in the keyring
/// before the call is answered; tokens the daemon had not read yet are read
/// first, to be revoked. A `BeginLogout` goes on under the same call, once the
/// keyring has forgotten them: its sign-out at the provider (`then`), naming
/// the ID token that was read.
public struct LogoutCall: OperationMachine {
    public let account: Account
    public let caller: String
    /// A `BeginLogout`'s begin, which takes the call over once the tokens are gone.
    public var then: Begin?

    public enum Work: Sendable, Equatable {
        /// The tokens the daemon had not read: read to be revoked.
        case read(AccountKey)
        case delete(AccountKey)
    }

    public enum Event: Sendable {
        case read(KeyringRead)
        /// The keyring forgot them (nil), or why not.
        case deleted(RouterError?)
    }

    var running: Running { .logout(self) }

    init?(_ running: Running) {
        guard case .logout(let m) = running else { return nil }
        self = m
    }

    init(account: Account, caller: String, then: Begin?) {
        self.account = account
        self.caller = caller
        self.then = then
    }

    mutating func handle(_ event: Event, op: OperationID, _ turn: inout Turn) -> Transition {
        switch event {
        case .read(let r):
            // Deleted whatever the read said (a failed read is not kept from the delete); what was read is revoked,
            // and its ID token named at the provider.
            var t = Transition(effects: [.start(op, .logout(.delete(account.key)))])
            if case .success(let kept?) = r {
                then?.flow = .signOut(idTokenHint: kept.idToken)
                t = t.then(Revoking.start(account, kept, &turn))
            }
            return t
        case .deleted(nil):
            // A `BeginLogout` goes on under the same held call: the provider's metadata, then its session.
            if let then { return Transition(core: [.finish(op)]).then(then.proceed(held: op, &turn)) }
            return Transition(core: [.finish(op)], effects: [.answer(op, .none)])
        case .deleted(let e?):
            let unopened = then == nil ? "" : "; nothing was opened at the provider"
            let refusal = RouterError(
                e.code,
                "\(account.name) is signed out in this daemon, but the keyring still holds its tokens: \(e.message)\(unopened)"
            )
            return Transition(core: [.finish(op)], effects: [.answer(op, .refused(refusal))])
        }
    }
}

/// What the keyring said of an account's item: the tokens it holds (nil: none), or why it could not say.
public typealias KeyringRead = Result<TokenSet?, RouterError>
