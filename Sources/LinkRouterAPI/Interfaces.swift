public import DBusKit
public import LinkRouterCore

/// linkrouter's interfaces and the standard ones every object carries.
public enum Interfaces {
    typealias A = InterfaceDescription.Argument

    /// The manager, `/org/linkrouter/LinkRouter1`.
    public static let managerTable = InterfaceTable<any ManagerHandlers, Void>(
        name: API.managerInterface,
        methods: [
            .init("BeginSession", in: [A("options", "a{sv}")], out: [A("session", "o"), A("authorize_url", "s")]) {
                h, _, call throws(DBusError) in
                try h.beginSession(call.arguments[0], call)
            },
            .init("Login", in: [A("options", "a{sv}")], out: [A("session", "o"), A("result", "a{sv}")]) {
                h, _, call throws(DBusError) in
                try h.login(call.arguments[0], call)
            },
            .init("BeginDeviceLogin", in: [A("options", "a{sv}")], out: [A("session", "o"), A("prompt", "a{sv}")]) {
                h, _, call throws(DBusError) in
                try h.beginDeviceLogin(call.arguments[0], call)
            },
            .init("RefreshTokens", in: [A("options", "a{sv}")], out: [A("tokens", "a{sv}")]) {
                h, _, call throws(DBusError) in
                try h.refreshTokens(call.arguments[0], call)
            },
            .init("Route", in: [A("uri", "s")], out: [A("outcome", "s")]) { h, _, call throws(DBusError) in
                try h.route(call.string(0), call)
            },
            .init("RouteLink", in: [A("uri", "s"), A("context", "a{sv}")], out: [A("outcome", "s")]) {
                h, _, call throws(DBusError) in
                try h.routeLink(call.string(0), context: activationContext(call.arguments[1]), call)
            },
            .init("ListSessions", in: [], out: [A("sessions", "a(oss)")]) { h, _, call in
                .values([sessionList(h.listSessions(call), withOwner: false)])
            },
            .init("ListAllSessions", in: [], out: [A("sessions", "a(osss)")]) { h, _, call in
                .values([sessionList(h.listAllSessions(call), withOwner: true)])
            },
            .init("Explain", in: [A("uri", "s")], out: [A("outcome", "s"), A("reason", "s")]) { h, _, call in
                let (outcome, reason) = h.explain(call.string(0), call)
                return .values([.string(outcome), .string(reason)])
            },
            .init("GetToken", in: [A("account", "s"), A("options", "a{sv}")], out: [A("token", "a{sv}")]) {
                h, _, call throws(DBusError) in
                try h.getToken(call.string(0), call.arguments[1], call)
            },
            .init(
                "SignProof", in: [A("account", "s"), A("method", "s"), A("url", "s"), A("options", "a{sv}")],
                out: [A("proof", "s")]
            ) {
                h, _, call throws(DBusError) in
                try h.signProof(call.string(0), call.string(1), call.string(2), call.arguments[3], call)
            },
            .init(
                "BeginLogout", in: [A("account", "s"), A("options", "a{sv}")],
                out: [A("session", "o"), A("end_session_url", "s")]
            ) {
                h, _, call throws(DBusError) in
                try h.beginLogout(call.string(0), call.arguments[1], call)
            },
            .init("RejectToken", in: [A("account", "s"), A("token", "s")], out: []) { h, _, call throws(DBusError) in
                try h.rejectToken(call.string(0), call.string(1), call)
            },
            .init("Logout", in: [A("account", "s")], out: [A("outcome", "a{sv}")]) { h, _, call throws(DBusError) in
                try h.logout(call.string(0), call)
            },
            .init("ListAccounts", in: [], out: [A("accounts", "aa{sv}")]) { h, _, call throws(DBusError) in
                try h.listAccounts(call)
            },
            .init("AddAccount", in: [A("account", "s"), A("options", "a{sv}")], out: []) {
                h, _, call throws(DBusError) in
                try h.addAccount(call.string(0), call.arguments[1], call)
            },
            .init("RevokeGrant", in: [A("app", "s"), A("account", "s")], out: []) { h, _, call throws(DBusError) in
                try h.revokeGrant(call.string(0), call.string(1), call)
            },
            .init("ForwardAgent", in: [A("options", "a{sv}")], out: [A("socket", "s")]) {
                h, _, call throws(DBusError) in
                try h.forwardAgent(call.arguments[0], call)
            },
            .init("RemoveAccount", in: [A("account", "s")], out: []) { h, _, call throws(DBusError) in
                try h.removeAccount(call.string(0), call)
            },
        ],
        signals: [
            // The account signed in, was refreshed, signed out, or its keyring locked or unlocked: never a token.
            .init(name: "AccountChanged", arguments: [A("account", "s"), A("state", "a{sv}")])
        ],
        properties: [
            .init("Version", "s", .const) { _, _ in .string(API.version) },
            .init("Store", "s", .unsignalled) { h, _ in .string(h.state.store) },
            .init("Counters", "a{st}", .unsignalled) { h, _ in
                .dictionary(key: "s", value: "t", h.state.counters.map { .init(.string($0.0), .uint64($0.1)) })
            },
        ])

    /// Each session, `/org/linkrouter/LinkRouter1/sessions/<id>`. Its
    /// properties hold nothing secret; codes and verifiers are only ever in `Wait`'s reply.
    public static let sessionTable = InterfaceTable<any SessionHandlers, Session>(
        name: API.sessionInterface,
        methods: [
            .init("Wait", in: [A("timeout_ms", "u")], out: [A("result", "a{sv}")]) { h, s, call throws(DBusError) in
                try h.wait(s.id, timeoutMilliseconds: call.uint32(0), call)
            },
            .init("Acknowledge", in: [], out: []) { h, s, call throws(DBusError) in
                try h.acknowledge(s.id, call)
                return .values([])
            },
            .init("Cancel", in: [], out: []) { h, s, call throws(DBusError) in
                try h.cancel(s.id, call)
                return .values([])
            },
            .init("Claim", in: [A("token", "s")], out: []) { h, s, call throws(DBusError) in
                try h.claim(s.id, token: call.string(0), call)
                return .values([])
            },
        ],
        signals: [
            .init(name: "ResumeRequested", arguments: [A("resume_uri", "s")]),
            .init(name: "ReturnRequested", arguments: [A("context", "a{sv}")]),
        ],
        properties: [
            .init("Status", "s", .emits) { .string($1.status.rawValue) },
            .init("RedirectUri", "s", .const) { .string($1.login.redirect?.string ?? "") },
            .init("AppCallbackUri", "s", .const) { .string($1.login.appCallback?.string ?? "") },
            .init("ExpiresAt", "t", .const) { .uint64(UInt64(max(0, $1.expiresAt))) },
            .init("Browser", "s", .const) { .string($1.login.browser ?? "") },
            .init("Flow", "s", .const) { .string($1.login.kind) },
            .init("OwnerApp", "s", .unsignalled) { .string($1.owner?.app.label ?? "") },
        ])

    public static let manager = managerTable.description
    public static let session = sessionTable.description

    /// `RouteLink`'s context: `activation-token` and `desktop-startup-id` (s),
    /// as in `org.freedesktop.Application`'s platform data. A value that is no
    /// usable token (not a string, over 1 KiB, a space or a control character)
    /// and a key it does not know are dropped, never the click (issue 45): the
    /// link is routed without them, and `dropped` says what for the log.
    static func activationContext(_ value: DBusValue) -> ActivationContext {
        var context = ActivationContext()
        for (key, wrapped) in value.stringKeyedEntries ?? [] {
            guard key == LinkIntake.activationTokenKey || key == LinkIntake.desktopStartupIDKey else {
                context.dropped.append("the unknown context \"\(PrintableText.shown(String(key.prefix(64))))\"")
                continue
            }
            guard let text = wrapped.variantValue?.stringValue, ActivationContext.isUsable(text) else {
                context.dropped.append(
                    "\(key), which is no token (a printable string of at most \(ActivationContext.maxTokenBytes) bytes)"
                )
                continue
            }
            if key == LinkIntake.activationTokenKey {
                context.activationToken = text
            } else {
                context.desktopStartupID = text
            }
        }
        return context
    }

    /// `ListSessions` / `ListAllSessions`: `(path, status, redirect_uri[, owner])`.
    static func sessionList(_ sessions: [Session], withOwner: Bool) -> DBusValue {
        let type: DBusSignature = withOwner ? "(osss)" : "(oss)"
        return .array(
            element: type,
            sessions.map { s in
                var fields: [DBusValue] = [
                    .objectPath(API.path(of: s.id)), .string(s.status.rawValue),
                    .string(s.login.redirect?.string ?? ""),
                ]
                if withOwner { fields.append(.string(s.ownerName ?? "")) }
                return .structure(fields)
            })
    }

}
