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

    public init(runtimeDirectory: String?, stateDirectory: String) {
        self.runtimeDirectory = runtimeDirectory
        self.stateDirectory = stateDirectory
    }

    public init(_ directories: XDGDirectories = .fromEnvironment()) {
        self.init(runtimeDirectory: directories.runtimeDir.map { $0 + "/linkrouter" }, stateDirectory: directories.stateHome + "/linkrouter")
    }

    /// The session store's directory (`sessions.sqlite` and its WAL).
    public var storeDirectory: String? { runtimeDirectory }
    /// Links `linkctl open` queued while no daemon answered.
    public var inboxDirectory: String? { runtimeDirectory.map { $0 + "/inbox" } }
    /// The https callbacks pending sessions wait on, published by the daemon.
    public var claimedCallbacksFile: String? { runtimeDirectory.map { $0 + "/claimed-callbacks" } }
    /// What `linkctl install` did (`InstallRecord`).
    public var installRecord: String { stateDirectory + "/install.conf" }
}
