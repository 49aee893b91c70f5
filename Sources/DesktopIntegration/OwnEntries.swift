public import Freedesktop
import SystemKit

/// How linkrouter recognises its own desktop entries, so it never hands a
/// link to itself (threat model R6).
public enum OwnEntries {
    public static let idPrefix = "linkrouter-"
    public static let httpsID = "linkrouter-https.desktop"

    public static func id(forScheme scheme: String) -> String { idPrefix + scheme + ".desktop" }

    public static func isOwn(_ entry: DesktopEntry) -> Bool {
        if entry.id.hasPrefix(idPrefix) || entry.id.hasPrefix("org.linkrouter.") { return true }
        guard let program = entry.program else { return false }
        return FileSystem.baseName(program) == "linkctl" || FileSystem.baseName(program) == "linkrouterd"
    }
}
