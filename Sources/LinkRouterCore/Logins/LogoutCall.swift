/// A `Logout` (or the first half of a `BeginLogout` or of a `RemoveAccount`):
/// the account's tokens forgotten, in memory at once (`AccountKeeper.logout`)
/// and in the keyring before anything else; tokens the daemon had not read
/// yet are read first, to be revoked. Once the keyring has forgotten them:
/// a `Logout`'s call goes on under the same operation as the revocation
/// (`Revoking`), answered with what the provider did; a `BeginLogout`'s
/// sign-out at the provider (`then`) takes the call over, naming the ID token
/// that was read; a `RemoveAccount` is answered at once, or, for a client
/// linkrouter registered, once the client is deleted at the provider
/// (`ClientDeregistration`, after the revocation).
public struct LogoutCall: OperationMachine {
    public let account: Account
    public let caller: String
    /// A `BeginLogout`'s begin, which takes the call over once the tokens are gone.
    public var then: Begin?
    /// The tokens to revoke (read from the keyring when memory had none), nil when none were held.
    public var kept: TokenSet?
    /// Whether the call is a `Logout`, answered with the revocation's outcome (`SignOutOutcome`).
    public let reports: Bool

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

    init(account: Account, caller: String, then: Begin?, kept: TokenSet?, reports: Bool) {
        self.account = account
        self.caller = caller
        self.then = then
        self.kept = kept
        self.reports = reports
    }

    /// The tokens are gone from the keyring (or were never there): the revocation, and the call's answer or the
    /// `BeginLogout`'s next step.
    static func forgotten(
        _ op: OperationID, _ account: Account, caller: String, kept: TokenSet?, then: Begin?, reports: Bool,
        _ turn: inout Turn
    ) -> Transition {
        if let then {
            // A `BeginLogout` goes on under the same held call: the provider's metadata, then its session.
            let revoked = kept.map { Revoking.start(account, $0, &turn) } ?? Transition()
            return Transition(core: [.finish(op)]).then(revoked).then(then.proceed(held: op, &turn))
        }
        if reports { return Revoking.answering(op, caller: caller, account, kept) }
        // A `RemoveAccount` of a client linkrouter registered: revoked, then the client deleted, then the answer.
        if account.registered == .managed { return Revoking.thenDeregistering(op, caller: caller, account, kept) }
        let revoked = kept.map { Revoking.start(account, $0, &turn) } ?? Transition()
        return Transition(core: [.finish(op)], effects: [.answer(op, .none)]).then(revoked)
    }

    mutating func handle(_ event: Event, op: OperationID, _ turn: inout Turn) -> Transition {
        switch event {
        case .read(let r):
            // Deleted whatever the read said (a failed read is not kept from the delete); what was read is revoked,
            // and its ID token named at the provider.
            if case .success(let read?) = r {
                then?.flow = .signOut(idTokenHint: read.idToken)
                kept = read
            }
            return Transition(effects: [.start(op, .logout(.delete(account.key)))])
        case .deleted(nil):
            return Self.forgotten(op, account, caller: caller, kept: kept, then: then, reports: reports, &turn)
        case .deleted(let e?):
            // The keyring still holds them, but they are revoked all the same: the person asked for the sign-out.
            let unopened = then == nil ? "" : "; nothing was opened at the provider"
            let refusal = RouterError(
                e.code,
                "\(account.name) is signed out in this daemon, but the keyring still holds its tokens: \(e.message)\(unopened)"
            )
            let revoked = kept.map { Revoking.start(account, $0, &turn) } ?? Transition()
            return Transition(core: [.finish(op)], effects: [.answer(op, .refused(refusal))]).then(revoked)
        }
    }
}

/// What the keyring said of an account's item: the tokens it holds (nil: none), or why it could not say.
public typealias KeyringRead = Result<TokenSet?, RouterError>
