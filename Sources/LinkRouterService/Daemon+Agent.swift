import LinkRouterCore

/// The agent socket's requests (`Agent`), decided as the bus's account calls
/// are: `access_token`/`id_token` is `GetToken` (by name, or by issuer with
/// an empty name), `loaded_accounts` is `ListAccounts`, for the connection's
/// caller name.
extension Daemon {
    func agentRequest(_ name: String, _ request: AgentRequest, through forward: AgentForward?) -> Result<
        Transition.Reply, AgentRefusal
    > {
        let declared = accounts.all()
        var request = request
        // Through a forward: only as far as the person said when making it.
        if let forward {
            do { request = try forward.admit(request, declared: declared) } catch { return .failure(error) }
        }
        let call: AccountCall
        switch request {
        case .token(let account, let options):
            if !account.isEmpty {
                do { try Account.checkName(account) } catch { return .success(.refused(error)) }
            }
            call = .getToken(account, options)
        case .loadedAccounts, .accountInfo:
            call = .list
        }
        return .success(execute(core.router.accountCall(call, accounts: declared, caller: name, now: now)))
    }
}
