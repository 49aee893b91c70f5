import LinkRouterAPI
public import LinkRouterCore
public import LinkRouterFiles
import SystemKit

/// How one `linkrouterd` runs: read from its arguments, with defaults that
/// suit a desktop session.
public struct DaemonConfiguration: Sendable {
    /// The bus to serve on; nil means the session bus.
    public var busAddress: String?
    public var limits = Limits()
    /// Links `Route` takes in any one second before refusing more (threat model X1).
    public var maxRoutesPerSecond = 200
    /// Where the store, the inbox, the claimed-callbacks list and the install record are.
    public var paths: LinkRouterPaths
    /// False keeps sessions in memory only (`--no-store`).
    public var useStore = true

    public init(busAddress: String? = nil, paths: LinkRouterPaths) {
        self.busAddress = busAddress
        self.paths = paths
    }

    public var storeDirectory: String? { useStore ? paths.storeDirectory : nil }

    public static let usage = """
        Usage: linkrouterd [OPTION…]

        The linkrouter daemon: owns org.linkrouter.LinkRouter1 on the session bus and
        routes login callbacks to the apps that began them. Usually started by D-Bus
        activation or by systemd (linkrouterd.service); run it by hand to debug.

        Options:
          --address ADDRESS          serve on this bus instead of the session bus
          --runtime-dir DIR          store and inbox directory (default $XDG_RUNTIME_DIR/linkrouter)
          --state-dir DIR            install record directory (default $XDG_STATE_HOME/linkrouter)
          --accounts-dir DIR         the user's accounts (default $XDG_CONFIG_HOME/linkrouter/accounts)
          --system-accounts-dir DIR  an administrator's accounts (default /etc/linkrouter/accounts.d)
          --no-store                 keep sessions in memory only (they die with the daemon)
          --max-pending N            unfinished sessions in all (default 1024)
          --max-pending-per-client N unfinished sessions per bus connection (default 32)
          --max-routes-per-second N  links Route accepts in any one second (default 200)
          --grace-period SECONDS     how long a finished session keeps its result for its
                                     owner (until Acknowledge) and its record (default 120)
          --version                  print the version and exit
          --help                     print this help and exit

        Exit status: 0 after a clean stop (SIGTERM), 1 when the bus name is taken or
        the bus cannot be reached, 64 on a usage error.

        """

    /// The outcome of reading the command line.
    public enum Parsed: Sendable {
        case run(DaemonConfiguration)
        case exit(Int32, String)
    }

    public static func parse(_ arguments: [String], directories: XDGDirectories = .fromEnvironment()) -> Parsed {
        var config = DaemonConfiguration(paths: LinkRouterPaths(directories))
        var i = 0
        func value(_ name: String) -> String? {
            guard i + 1 < arguments.count else { return nil }
            i += 1
            return arguments[i]
        }
        while i < arguments.count {
            let arg = arguments[i]
            switch arg {
            case "--help", "-h": return .exit(0, usage)
            case "--version": return .exit(0, "linkrouterd \(API.version)\n")
            case "--no-store": config.useStore = false
            case "--address":
                guard let v = value(arg) else { return .exit(64, "linkrouterd: --address needs a bus address\n") }
                config.busAddress = v
            case "--runtime-dir":
                guard let v = value(arg), v.hasPrefix("/") else {
                    return .exit(64, "linkrouterd: --runtime-dir needs an absolute directory\n")
                }
                config.paths.runtimeDirectory = v
            case "--state-dir":
                guard let v = value(arg), v.hasPrefix("/") else {
                    return .exit(64, "linkrouterd: --state-dir needs an absolute directory\n")
                }
                config.paths.stateDirectory = v
            case "--accounts-dir", "--system-accounts-dir":
                guard let v = value(arg), v.hasPrefix("/") else {
                    return .exit(64, "linkrouterd: \(arg) needs an absolute directory\n")
                }
                if arg == "--accounts-dir" {
                    config.paths.accountsDirectory = v
                } else {
                    config.paths.systemAccountsDirectory = v
                }
            case "--max-routes-per-second":
                guard let v = value(arg), let n = Int(v), n > 0, n <= 10_000_000 else {
                    return .exit(64, "linkrouterd: \(arg) needs a number from 1 to 10000000\n")
                }
                config.maxRoutesPerSecond = n
            case "--grace-period":
                guard let v = value(arg), let n = Int64(v), n >= 1, n <= 86_400 else {
                    return .exit(64, "linkrouterd: --grace-period needs a number of seconds from 1 to 86400\n")
                }
                config.limits.gracePeriod = n
            case "--max-pending", "--max-pending-per-client":
                guard let v = value(arg), let n = Int(v), n > 0, n <= 1_000_000 else {
                    return .exit(64, "linkrouterd: \(arg) needs a number from 1 to 1000000\n")
                }
                if arg == "--max-pending" {
                    config.limits.maxPendingTotal = n
                } else {
                    config.limits.maxPendingPerOwner = n
                }
            default:
                return .exit(64, "linkrouterd: unknown option \(arg)\nTry 'linkrouterd --help'.\n")
            }
            i += 1
        }
        return .run(config)
    }
}
