import DBusKit
public import Freedesktop
public import LinkRouterCore
import SystemKit

/// Whether a desktop entry is an app linkrouter may hand links to, and if
/// not, why, in words for `linkctl register`, `doctor` and the log.
public enum AppCheck {
    /// Programs that only hand a link on: an app whose `Exec` is one of them
    /// would send the link straight back to linkrouter (a loop).
    static let forwarders: Set<String> = [
        "xdg-open", "gio", "gio-launch-desktop", "kde-open", "kde-open5", "gnome-open", "exo-open", "linkctl",
        "linkrouterd",
    ]

    /// Field codes an `Exec` that takes a URL may have (the URL is appended when it has none).
    static let allowedCodes: Set<String> = ["%u", "%U", "%i", "%c", "%k"]

    /// Why `entry` cannot take links, or nil when it can. `named` is true when
    /// the user named it (`register --app`): then `NoDisplay` is no reason,
    /// as URL handlers (VS Code's `code-url-handler.desktop`) are often hidden from menus.
    public static func problem(_ entry: DesktopEntry, named: Bool = false) -> String? {
        guard entry.type == "Application" else {
            return "\(entry.id) is not an application entry (Type=\(entry.type ?? "none"))"
        }
        guard !entry.hidden else { return "\(entry.id) is Hidden (deleted for this user)" }
        guard named || !entry.noDisplay else {
            return "\(entry.id) is NoDisplay (not an app to discover; name it with --app to use it anyway)"
        }
        guard !OwnEntries.isOwn(entry) else {
            return "\(entry.id) is linkrouter's own entry; a link is never handed back to linkrouter"
        }
        guard let exec = entry.exec, let program = entry.program else { return "\(entry.id) has no Exec line" }
        if let tryExec = entry.tryExec, FileSystem.findExecutable(tryExec) == nil {
            return "\(entry.id) names TryExec=\(tryExec), which is not installed"
        }
        guard FileSystem.findExecutable(program) != nil else {
            return "\(entry.id) runs \(program), which is not installed"
        }
        if forwarders.contains(FileSystem.baseName(program)) {
            return
                "\(entry.id) runs \(FileSystem.baseName(program)), which hands links on (to linkrouter again: a loop)"
        }
        do { _ = try ExecLine.split(exec) } catch {
            return "\(entry.id) has an Exec line that cannot be read: \(error.description)"
        }
        if let odd = entry.fieldCodes.first(where: { !allowedCodes.contains($0) }) {
            return "\(entry.id) has Exec field code \(odd), which does not take a URL (an app for links uses %u or %U)"
        }
        return nil
    }

    /// The app `entry` is: D-Bus activatable when it says so and its id is a
    /// valid bus name (the spec requires it), else started through `Exec`.
    public static func linkApp(_ entry: DesktopEntry) -> LinkApp {
        let app = LinkApp(id: entry.id, delivery: .exec)
        guard entry.dbusActivatable, let name = BusName(app.appID), !name.rawValue.hasPrefix(":"),
            ObjectPath(app.objectPath) != nil
        else { return app }
        return LinkApp(id: entry.id, delivery: .dbus)
    }
}
