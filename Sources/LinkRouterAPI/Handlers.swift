public import DBusKit
public import LinkRouterCore

/// What serves the manager object: one requirement per method of
/// `Interfaces.managerTable`. A daemon missing one does not compile.
public protocol ManagerHandlers: AnyObject {
    func beginSession(_ options: DBusValue, _ call: MethodCall) throws(DBusError) -> MethodReply
    func login(_ options: DBusValue, _ call: MethodCall) throws(DBusError) -> MethodReply
    func beginDeviceLogin(_ options: DBusValue, _ call: MethodCall) throws(DBusError) -> MethodReply
    func route(_ uri: String, _ call: MethodCall) throws(DBusError) -> MethodReply
    func routeLink(_ uri: String, context: ActivationContext, _ call: MethodCall) throws(DBusError) -> MethodReply
    func refreshTokens(_ options: DBusValue, _ call: MethodCall) throws(DBusError) -> MethodReply
    func listSessions(_ call: MethodCall) -> [Session]
    func listAllSessions(_ call: MethodCall) -> [Session]
    func explain(_ uri: String, _ call: MethodCall) -> (outcome: String, reason: String)
    func getToken(_ account: String, _ options: DBusValue, _ call: MethodCall) throws(DBusError) -> MethodReply
    func beginLogout(_ account: String, _ options: DBusValue, _ call: MethodCall) throws(DBusError) -> MethodReply
    func signProof(_ account: String, _ method: String, _ url: String, _ options: DBusValue, _ call: MethodCall)
        throws(DBusError) -> MethodReply
    func listAccounts(_ call: MethodCall) throws(DBusError) -> MethodReply
    func rejectToken(_ account: String, _ token: String, _ call: MethodCall) throws(DBusError) -> MethodReply
    func logout(_ account: String, _ call: MethodCall) throws(DBusError) -> MethodReply
    func addAccount(_ account: String, _ options: DBusValue, _ call: MethodCall) throws(DBusError) -> MethodReply
    func removeAccount(_ account: String, _ call: MethodCall) throws(DBusError) -> MethodReply
    func revokeGrant(_ app: String, _ account: String, _ call: MethodCall) throws(DBusError) -> MethodReply
    func forwardAgent(_ options: DBusValue, _ call: MethodCall) throws(DBusError) -> MethodReply
    /// What the `Store` and `Counters` properties read.
    var state: ManagerState { get }
}

/// What serves the session objects: one requirement per method of `Interfaces.sessionTable`.
public protocol SessionHandlers: AnyObject {
    func wait(_ id: SessionID, timeoutMilliseconds: UInt32, _ call: MethodCall) throws(DBusError) -> MethodReply
    func acknowledge(_ id: SessionID, _ call: MethodCall) throws(DBusError)
    func cancel(_ id: SessionID, _ call: MethodCall) throws(DBusError)
    func claim(_ id: SessionID, token: String, _ call: MethodCall) throws(DBusError)
}
