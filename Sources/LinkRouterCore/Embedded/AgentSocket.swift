/// The agent socket's place and linkrouter's own request on it, spelled once:
/// the daemon listens there and answers it (`Agent`, `AgentRequest`), both
/// halves of linkctl find it (`linkctl agent env`, the front's token fast
/// path; the front compiles this file).
public enum AgentSocket {
    /// Under `$XDG_RUNTIME_DIR`: the daemon's runtime directory, then the socket.
    public static let directory = "linkrouter"
    public static let name = "agent"

    /// `{"request":"linkrouter_token","account":NAME,"options":{…}}`: `GetToken` with its options as JSON.
    public static let tokenRequest = "linkrouter_token"
    /// Its answer: `{"status":"success","reply":{…the a{sv} as JSON…}}`, or
    /// `{"status":"failure","error":MESSAGE,"error_name":D-BUS-NAME}`.
    public static let reply = "reply"
    public static let errorName = "error_name"
}
