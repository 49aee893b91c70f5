import DBusKit
import DesktopIntegration
import LinkRouterAPI
import LinkRouterCore

/// The agent socket's requests (`Agent`), decided as the bus's account calls
/// are: `access_token`/`id_token` is `GetToken` (by name, or by issuer with
/// an empty name), `loaded_accounts` and `account_info` are `ListAccounts`,
/// linkrouter's own `linkrouter_token` is `GetToken` with its options as
/// they come over the bus; each for the connection's caller name.
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
        case .getToken(let account, let json):
            // Decoded as the bus's a{sv} is, so a refusal reads as it would there.
            do throws(DBusError) {
                let (options, named) = try tokenRequest(account, AgentReplyJSON.options(json))
                guard options.proof == nil else {
                    return .failure(
                        .named(
                            RouterError.Code.invalidArgument.dbusName,
                            message: "a DPoP proof is signed only over D-Bus (GetToken with dpop_method and dpop_url)"))
                }
                if let named {
                    do { try Account.checkName(named) } catch { throw DBusError(error) }
                }
                call = .getToken(account, options)
            } catch {
                return .failure(.named(error.name, message: error.message))
            }
        }
        // Its app is known before the core decides (the peer was taken at accept): no round of identification.
        let app = agentCaller(name)
        execute(core.router.callerIdentified(name, as: app, face: CallerApps.exportedFace(of: app)))
        return .success(execute(core.router.accountCall(call, accounts: declared, caller: name, now: now)))
    }

    /// The app of the agent connection `name`: the kernel's word for its process (`SO_PEERCRED` and the pidfd taken at
    /// accept, asked now whether it exited), read as a bus caller's is; through a forward, the far host.
    private func agentCaller(_ name: String) -> CallerApp {
        guard let peer = agent.peer(name), !peer.exited, let credentials = peer.credentials else { return .unknown }
        let app = CallerApps.app(ofProcess: credentials.pid, uid: credentials.uid, appearedAt: peer.acceptedAt)
        // Through a forward the peer is the local `ssh` (a host program): the request is the far host's.
        guard let forward = peer.forward else { return app }
        return app != .host ? .unknown : forward.unconfirmed ? .host : .remote(forward.host)
    }
}
