/// The last step of a `RemoveAccount` whose client linkrouter registered
/// (`Account.registered` `managed`): after its tokens are forgotten and
/// revoked, the client is deleted at the provider (RFC 7592 §2.3) with the
/// credentials kept in the keyring, those are forgotten, and the call is
/// answered. Deleting the client last lets the revocation still name it.
/// The account is gone here whatever the provider says; a client that could
/// not be deleted is said, with its id, so the person can delete it there.
public struct ClientDeregistration: OperationMachine {
    public let account: Account
    public let caller: String
    /// Why the provider's delete failed, said once the credentials are forgotten.
    var failure: RouterError?

    public enum Work: Sendable, Equatable {
        case read(AccountKey)
        case delete(RegistrationCredentials)
        case forget(AccountKey)
    }

    public enum Event: Sendable {
        /// The credentials kept for the account (nil: none), or why the keyring could not say.
        case read(Result<RegistrationCredentials?, RouterError>)
        case deleted(RouterError?)
        case forgotten(RouterError?)
    }

    var running: Running { .deregistration(self) }

    init?(_ running: Running) {
        guard case .deregistration(let m) = running else { return nil }
        self = m
    }

    init(account: Account, caller: String) {
        self.account = account
        self.caller = caller
    }

    /// Begun under `op`, whose call it answers.
    func start(_ op: OperationID) -> Transition {
        Transition(
            core: [.track(op, .deregistration(self))], effects: [.start(op, .deregistration(.read(account.key)))])
    }

    mutating func handle(_ event: Event, op: OperationID, _ turn: inout Turn) -> Transition {
        let (name, id, issuer) = (account.name, account.clientID, account.issuer)
        switch event {
        case .read(.success(let credentials?)):
            return Transition(effects: [.start(op, .deregistration(.delete(credentials)))])
        case .read(.success(nil)):
            return answer(
                op,
                RouterError(
                    .registrationFailed,
                    "\(name) is removed, but the keyring holds no means to delete its client \(id) at \(issuer); delete it there by hand"
                ))
        case .read(.failure(let e)):
            return answer(
                op,
                RouterError(
                    e.code,
                    "\(name) is removed, but its client \(id) is still registered at \(issuer): the keyring could not be read (\(e.message))"
                ))
        case .deleted(let e):
            failure = e.map {
                RouterError(
                    .registrationFailed,
                    "\(name) is removed, but its client \(id) is still registered at \(issuer): \($0.message); delete it there by hand"
                )
            }
            return Transition(effects: [.start(op, .deregistration(.forget(account.key)))])
        case .forgotten(let e):
            if let failure { return answer(op, failure) }
            if let e {
                return answer(
                    op,
                    RouterError(
                        e.code,
                        "\(name) and its client at \(issuer) are removed, but the keyring still holds the client's management token (\(e.message))"
                    ))
            }
            let caller = caller
            return Transition(
                core: [.finish(op)],
                effects: [
                    .log(LogLine(.info, "\(name)'s client \(id) deleted at \(issuer) (RFC 7592), asked by \(caller)")),
                    .answer(op, .none),
                ])
        }
    }

    private func answer(_ op: OperationID, _ e: RouterError) -> Transition {
        Transition(core: [.finish(op)], effects: [.log(LogLine(.warning, e.message)), .answer(op, .refused(e))])
    }
}
