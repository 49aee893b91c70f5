import Freedesktop
import LinkRouterCore
public import LinkRouterFiles
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
        /// Other entries are listed as handlers of the custom scheme `mime` too:
        /// the OpenURI portal then asks which app opens each link ("Open With…"),
        /// and a person who picks the app hands it a login's code.
        case sharedWith(id: String, mime: String, others: [String])
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
                out.append(
                    current == id ? .handles(id: id, mime: mime) : .notDefault(id: id, mime: mime, current: current))
                // The portal skips its chooser for http(s) when there is a default; for other schemes only with one
                // handler.
                guard mime.hasPrefix("x-scheme-handler/"),
                    !SchemeRule.isWeb(String(mime.dropFirst("x-scheme-handler/".count)))
                else { continue }
                let others = database.mimeApps.candidates(for: mime, excluding: OwnEntries.isOwn).map(\.id)
                if !others.isEmpty { out.append(.sharedWith(id: id, mime: mime, others: others)) }
            }
        }
        return out
    }
}
