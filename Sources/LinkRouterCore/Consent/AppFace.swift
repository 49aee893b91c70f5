/// A sandboxed app as the person knows it: the `Name` and `Icon` of the desktop entry its sandbox manager exported
/// for its verified id (Flatpak's `exports/share/applications/ID.desktop`, snapd's), found when a connection of its
/// was identified. The app ships that entry, so a prompt shows it only beside the verified id, and only what passes
/// `checked`: plain words for the name, an icon-theme name (never a path) for the icon.
public struct AppFace: Sendable, Equatable {
    public let name: String?
    public let icon: String?

    public init(name: String?, icon: String?) {
        self.name = name
        self.icon = icon
    }

    /// The name as a prompt's summary may hold it (issue 44's C6: summaries hold only checked words): letters,
    /// digits, spaces and `. - _ + & ' ( )`, at most 64 characters.
    public var checkedName: String? {
        guard let raw = name else { return nil }
        let trimmed = String(raw.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
        guard !trimmed.isEmpty, trimmed.count <= 64,
            trimmed.unicodeScalars.allSatisfy({ s in
                s.properties.isAlphabetic || s.properties.numericType != nil || " .-_+&'()".unicodeScalars.contains(s)
            })
        else { return nil }
        return trimmed
    }

    /// The icon as an icon-theme name (`org.example.App`): ASCII letters, digits, `.`, `-` and `_`, at most 128
    /// bytes; a path (`/…`) or anything else is not used (a notification server would read any file it names).
    public var checkedIcon: String? {
        guard let icon, !icon.isEmpty, icon.utf8.count <= 128, !icon.hasPrefix("."),
            icon.utf8.allSatisfy({ ASCII.isAlpha($0) || ASCII.isDigit($0) || $0 == 0x2E || $0 == 0x2D || $0 == 0x5F })
        else { return nil }
        return icon
    }
}
