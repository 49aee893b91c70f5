import LinkRouterCore
public import SystemKit

/// Where linkrouter keeps what the daemon and linkctl both read or write.
/// The one place these paths are spelled: the daemon takes them from its
/// flags (`--runtime-dir`, `--state-dir`), linkctl from the environment.
public struct LinkRouterPaths: Sendable, Equatable {
    /// `$XDG_RUNTIME_DIR/linkrouter` (per-user tmpfs, cleared at logout): the
    /// store, the inbox, the claimed-callbacks list. Nil without a runtime directory.
    public var runtimeDirectory: String?
    /// `$XDG_STATE_HOME/linkrouter`: the install record.
    public var stateDirectory: String
    /// `$XDG_CONFIG_HOME/linkrouter/accounts`: the user's accounts, a key file each (`AccountFiles`).
    public var accountsDirectory: String?
    /// An administrator's accounts for every user, read-only to them.
    public var systemAccountsDirectory: String

    public static let defaultSystemAccountsDirectory = "/etc/linkrouter/accounts.d"

    public init(
        runtimeDirectory: String?, stateDirectory: String, accountsDirectory: String? = nil,
        systemAccountsDirectory: String = LinkRouterPaths.defaultSystemAccountsDirectory
    ) {
        self.runtimeDirectory = runtimeDirectory
        self.stateDirectory = stateDirectory
        self.accountsDirectory = accountsDirectory
        self.systemAccountsDirectory = systemAccountsDirectory
    }

    public init(_ directories: XDGDirectories = .fromEnvironment()) {
        self.init(
            runtimeDirectory: directories.runtimeDir.map { $0 + "/" + AgentSocket.directory },
            stateDirectory: directories.stateHome + "/linkrouter",
            accountsDirectory: directories.configHome + "/linkrouter/accounts")
    }

    /// The person's "Always allow" answers (`GrantsFile`), beside the accounts: `$XDG_CONFIG_HOME/linkrouter/grants.conf`.
    public var grantsFile: String? { accountsDirectory.map { FileSystem.directoryName($0) + "/grants.conf" } }

    /// The session store's directory (`sessions.sqlite` and its WAL).
    public var storeDirectory: String? { runtimeDirectory }
    /// Links `linkctl open` queued while no daemon answered.
    public var inboxDirectory: String? { runtimeDirectory.map { $0 + "/inbox" } }
    /// The https callbacks pending sessions wait on, published by the daemon.
    public var claimedCallbacksFile: String? { runtimeDirectory.map { $0 + "/claimed-callbacks" } }
    /// The oidc-agent socket (`OIDC_SOCK`), served by the daemon for oidc-agent's clients.
    public var agentSocket: String? { runtimeDirectory.map { $0 + "/" + AgentSocket.name } }
    /// What `linkctl install` did (`InstallRecord`).
    public var installRecord: String { stateDirectory + "/install.conf" }
}
