#if !hasFeature(Embedded)
    import LinkRouterCore
#endif

/// kubectl's exec-plugin protocol as `linkctl credential kube` speaks it
/// (`../shared/reference/credential-helper-protocols.md`): the request in
/// `KUBERNETES_EXEC_INFO`, the answer an ExecCredential of the same
/// apiVersion. linkctl's front compiles this file as it is, so both halves
/// accept the same requests and write the same answer.
enum ExecCredential {
    /// Where kubectl puts its request (JSON; kubectl 1.20 sends no `interactive`).
    static let variable = "KUBERNETES_EXEC_INFO"
    /// The apiVersion answered when kubectl sends no request.
    static let defaultAPIVersion = "client.authentication.k8s.io/v1beta1"
    /// What is said of a request that is not kubectl's.
    static let notARequest = "KUBERNETES_EXEC_INFO is not an ExecCredential request"

    /// An apiVersion this helper answers in: any of the `client.authentication.k8s.io` group's.
    static func accepts(apiVersion: String) -> Bool { apiVersion.hasPrefix("client.authentication.k8s.io/") }

    /// The ExecCredential for a token, with its expiry when the daemon gave one (kubectl asks again after it).
    static func answer(apiVersion: String, token: String, expiresAt: Int64?) -> JSON {
        var status: [(String, JSON)] = [("token", .string(token))]
        if let expiresAt { status.append(("expirationTimestamp", .string(UTCTime.rfc3339(expiresAt)))) }
        return .object([
            ("apiVersion", .string(apiVersion)), ("kind", .string("ExecCredential")), ("status", .object(status)),
        ])
    }
}
