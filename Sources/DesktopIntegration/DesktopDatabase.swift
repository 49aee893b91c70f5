public import Freedesktop
public import SystemKit

/// The installed desktop entries and MIME defaults of this user, read from
/// the XDG directories each time (the user may change them at any moment).
public struct DesktopDatabase {
    public let directories: XDGDirectories
    public let mimeApps: MimeApps

    public init(
        directories: XDGDirectories = .fromEnvironment(),
        currentDesktop: String? = Environment.get("XDG_CURRENT_DESKTOP")
    ) {
        self.directories = directories
        mimeApps = MimeApps(
            configSearchPath: directories.configSearchPath, dataSearchPath: directories.dataSearchPath,
            currentDesktop: currentDesktop,
            read: { path in try? FileSystem.readText(path, maxBytes: 1 << 20) })
    }

    public func entry(_ id: String) -> DesktopEntry? { mimeApps.entry(for: id) }

    /// The user's web browser: the default `x-scheme-handler/https` handler
    /// (then `http`, then `text/html`) that is not linkrouter itself.
    public func defaultBrowser() -> DesktopEntry? {
        for type in ["x-scheme-handler/https", "x-scheme-handler/http", "text/html"] {
            if let e = mimeApps.defaultApplication(for: type, excluding: OwnEntries.isOwn) { return e }
        }
        return nil
    }

    /// The handler the desktop would pick for `scheme`, linkrouter's own included.
    public func defaultHandler(forScheme scheme: String) -> DesktopEntry? {
        mimeApps.defaultApplication(for: "x-scheme-handler/" + scheme)
    }

    /// Every entry that declares `scheme`, for `linkctl doctor`.
    public func handlers(forScheme scheme: String) -> [DesktopEntry] {
        mimeApps.candidates(for: "x-scheme-handler/" + scheme)
    }

    /// The user's own `applications` directory, where linkrouter writes.
    public var userApplicationsDirectory: String { directories.dataHome + "/applications" }
    /// The user's `mimeapps.list`, where defaults are written (spec: `$XDG_CONFIG_HOME`).
    public var userMimeAppsList: String { directories.configHome + "/mimeapps.list" }
}
