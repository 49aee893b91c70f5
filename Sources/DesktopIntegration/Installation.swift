import LinkRouterAPI
import LinkRouterCore
public import LinkRouterFiles
public import SystemKit

/// Where `linkctl install` puts linkrouter for one user, and what it writes
/// there. The same texts, with `@bindir@` for the directory, are in
/// `packaging/` for distributions (a test keeps them equal).
public struct Installation: Sendable {
    public let directories: XDGDirectories
    /// The directory holding `linkctl` and `linkrouterd`.
    public let binDirectory: String

    public init(directories: XDGDirectories = .fromEnvironment(), binDirectory: String) {
        self.directories = directories
        self.binDirectory = binDirectory
    }

    static var busName: String { API.busName.rawValue }
    public static let unitName = "linkrouterd.service"

    public var linkctl: String { binDirectory + "/linkctl" }
    public var linkrouterd: String { binDirectory + "/linkrouterd" }
    public var serviceFilePath: String { directories.dataHome + "/dbus-1/services/" + Self.busName + ".service" }
    public var unitPath: String { directories.configHome + "/systemd/user/" + Self.unitName }
    public static let socketUnitName = "linkrouterd-agent.socket"
    public var socketUnitPath: String { directories.configHome + "/systemd/user/" + Self.socketUnitName }

    /// Where the session bus finds an activation file: the user's, then a package's (`$XDG_DATA_DIRS`), in the bus's
    /// order.
    public var serviceFileSearchPath: [String] {
        [serviceFilePath] + directories.dataDirs.map { $0 + "/dbus-1/services/" + Self.busName + ".service" }
    }

    /// Where the user manager finds the unit: the user's, then the system's user units (a package's), in systemd's
    /// order.
    public var unitSearchPath: [String] {
        [unitPath]
            + ["/etc/systemd/user", "/usr/local/lib/systemd/user", "/usr/lib/systemd/user"].map {
                $0 + "/" + Self.unitName
            }
    }
    /// The shared paths (the install record among them), for these directories.
    public var paths: LinkRouterPaths { LinkRouterPaths(directories) }
    public var stateDirectory: String { paths.stateDirectory }
    public var recordPath: String { paths.installRecord }
    public var applicationsDirectory: String { directories.dataHome + "/applications" }

    /// The D-Bus activation file: systemd starts the unit; without a user
    /// manager, dbus-daemon runs `Exec=` itself.
    public static func serviceFile(bindir: String) -> String {
        """
        [D-BUS Service]
        Name=\(busName)
        Exec=\(bindir)/linkrouterd
        SystemdService=\(unitName)

        """
    }

    /// The oidc-agent socket's unit: systemd listens at `$XDG_RUNTIME_DIR/linkrouter/agent` and starts the daemon
    /// for the first client, handing it the socket (`FileDescriptorName=agent`, `SocketActivation`). Not enabled by
    /// anything: `systemctl --user enable --now linkrouterd-agent.socket` turns it on (the daemon makes the socket
    /// itself whenever it runs).
    /// Its path and name are `AgentSocket`'s, which the daemon reads the passed socket by.
    public static let socketUnitFile = """
        [Unit]
        Description=linkrouter: the oidc-agent socket (OIDC_SOCK) of linkrouterd
        Documentation=man:linkctl(1)

        [Socket]
        ListenStream=%t/\(AgentSocket.directory)/\(AgentSocket.name)
        SocketMode=0600
        DirectoryMode=0700
        FileDescriptorName=\(AgentSocket.name)
        Service=linkrouterd.service

        [Install]
        WantedBy=sockets.target

        """

    /// The systemd user unit, hardened as far as the daemon can live with:
    /// it needs the session bus (AF_UNIX), loopback listeners (AF_INET/6),
    /// to write only `$XDG_RUNTIME_DIR` (`%t`) and to read desktop files.
    /// Browsers do not inherit any of it: under systemd the daemon starts them
    /// with `systemd-run --user` (see `BrowserLauncher.Method`). The namespace
    /// options need unprivileged user namespaces in a user unit; docs/packaging.md
    /// has the drop-in for systems that lack them.
    public static func unitFile(bindir: String) -> String {
        """
        [Unit]
        Description=linkrouter: routes login callbacks to the desktop apps that began them
        Documentation=file://\(bindir)/../share/doc/linkrouter/README.md
        PartOf=graphical-session.target

        [Service]
        Type=dbus
        BusName=\(busName)
        ExecStart=\(bindir)/linkrouterd
        Restart=on-failure
        RestartSec=1
        # A stop waits up to 75 s for refreshes (60 s each at most) and keyring writes (10 s) under way: a rotated
        # refresh token is spent at the provider before its answer lands. This leaves it the time.
        TimeoutStopSec=90
        # 75: the executable was replaced by an upgrade; start the new one (not a failure).
        SuccessExitStatus=75
        RestartForceExitStatus=75
        LimitCORE=0
        NoNewPrivileges=yes
        UMask=0077
        MemoryDenyWriteExecute=yes
        LockPersonality=yes
        RestrictRealtime=yes
        RestrictSUIDSGID=yes
        RestrictNamespaces=yes
        RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6
        SystemCallArchitectures=native
        SystemCallFilter=@system-service
        SystemCallFilter=~@privileged @resources @mount @reboot @swap @obsolete @cpu-emulation @debug @module @raw-io @clock
        SystemCallErrorNumber=EPERM
        KeyringMode=private

        [Install]
        WantedBy=graphical-session.target

        """
    }
}
