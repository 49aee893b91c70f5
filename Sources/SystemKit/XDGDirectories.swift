/// The XDG Base Directory spec's directories, from the environment with the
/// spec's defaults. An unset or empty variable, or a relative path, falls back.
public struct XDGDirectories: Sendable, Equatable {
    public var home: String
    public var dataHome: String
    public var configHome: String
    public var stateHome: String
    public var runtimeDir: String?
    public var dataDirs: [String]
    public var configDirs: [String]

    public init(
        home: String, dataHome: String, configHome: String, stateHome: String, runtimeDir: String?,
        dataDirs: [String], configDirs: [String]
    ) {
        self.home = home
        self.dataHome = dataHome
        self.configHome = configHome
        self.stateHome = stateHome
        self.runtimeDir = runtimeDir
        self.dataDirs = dataDirs
        self.configDirs = configDirs
    }

    public static func fromEnvironment() -> XDGDirectories {
        func absolute(_ name: String) -> String? {
            guard let v = Environment.nonEmpty(name), v.hasPrefix("/") else { return nil }
            return v
        }
        func list(_ name: String, _ fallback: [String]) -> [String] {
            guard let v = Environment.nonEmpty(name) else { return fallback }
            let dirs = v.split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
            return dirs.isEmpty ? fallback : dirs
        }
        let home = Environment.nonEmpty("HOME") ?? "/"
        return XDGDirectories(
            home: home,
            dataHome: absolute("XDG_DATA_HOME") ?? home + "/.local/share",
            configHome: absolute("XDG_CONFIG_HOME") ?? home + "/.config",
            stateHome: absolute("XDG_STATE_HOME") ?? home + "/.local/state",
            runtimeDir: absolute("XDG_RUNTIME_DIR"),
            dataDirs: list("XDG_DATA_DIRS", ["/usr/local/share", "/usr/share"]),
            configDirs: list("XDG_CONFIG_DIRS", ["/etc/xdg"]))
    }

    /// `$XDG_DATA_HOME` then `$XDG_DATA_DIRS`, most important first.
    public var dataSearchPath: [String] { [dataHome] + dataDirs }
    /// `$XDG_CONFIG_HOME` then `$XDG_CONFIG_DIRS`, most important first.
    public var configSearchPath: [String] { [configHome] + configDirs }
}
