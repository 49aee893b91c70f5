public import LinkRouterFiles
import Freedesktop
import SystemKit

/// Whether each handler linkrouter installed still catches its links: the
/// one check behind the daemon's start-up warning (threat model E3) and
/// `linkctl doctor`. Another program may have taken a scheme over, or the
/// linkctl a handler runs may be gone.
public enum HandlerCheck {
    /// One finding about one installed handler.
    public enum Finding: Sendable, Equatable {
        /// The handler is the default for `mime`.
        case handles(id: String, mime: String)
        /// Its desktop file is gone.
        case missing(id: String, path: String)
        /// Its `Exec` runs a program that does not exist.
        case staleExec(id: String, program: String)
        /// Another entry (or none) is the default for `mime`.
        case notDefault(id: String, mime: String, current: String?)
    }

    /// Every handler in `record`, checked against `database`.
    public static func run(record: InstallRecord, database: DesktopDatabase) -> [Finding] {
        var out: [Finding] = []
        for path in record.files where FileSystem.baseName(path).hasPrefix(OwnEntries.idPrefix) {
            let id = FileSystem.baseName(path)
            guard let text = try? FileSystem.readText(path) else {
                out.append(.missing(id: id, path: path))
                continue
            }
            let entry = DesktopEntry(id: id, path: path, text: text)
            if let program = entry.program, !FileSystem.isExecutable(program) {
                out.append(.staleExec(id: id, program: program))
            }
            for mime in entry.mimeTypes {
                let current = database.mimeApps.defaultApplication(for: mime)?.id
                out.append(current == id ? .handles(id: id, mime: mime) : .notDefault(id: id, mime: mime, current: current))
            }
        }
        return out
    }
}
