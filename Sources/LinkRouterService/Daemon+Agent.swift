import LinkRouterCore

/// The agent socket's requests (`Agent`), decided as the bus's account calls
/// are: `access_token`/`id_token` is `GetToken` (by name, or by issuer with
/// an empty name), `loaded_accounts` is `ListAccounts`, for the connection's
/// caller name.
extension Daemon {
    func agentRequest(_ name: String, _ request: AgentRequest) -> Transition.Reply {
        let call: AccountCall
        switch request {
        case .token(let account, let options):
            if !account.isEmpty {
                do { try Account.checkName(account) } catch { return .refused(error) }
            }
            call = .getToken(account, options)
        case .loadedAccounts:
            call = .list
        }
        return execute(core.router.accountCall(call, accounts: accounts.all(), caller: name, now: now))
    }
}
