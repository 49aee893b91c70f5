import DesktopIntegration
import LinkRouterFiles
import SystemKit

extension Daemon {
    /// Start-up self-check (threat model E3): each handler linkrouter
    /// installed should still be the default for its scheme. Another program
    /// may have taken one over; links of that scheme would then never reach
    /// the daemon. Security does not rest on this (state, PKCE and the exact
    /// callback match do), so it warns and points at `linkctl doctor`.
    func checkHandlers() {
        guard let record = InstallRecord.read(paths.installRecord) else { return }
        for finding in HandlerCheck.run(record: record, database: DesktopDatabase()) {
            switch finding {
            case .handles:
                break
            case .missing(let id, _):
                Log.warning("Installed handler \(id) is gone; run linkctl doctor")
            case .staleExec(let id, let program):
                Log.warning("Installed handler \(id) runs \(program), which does not exist; run linkctl doctor")
            case .notDefault(let id, let mime, let current):
                Log.warning("\(mime) is handled by \(current ?? "nothing"), not by linkrouter's \(id): those links will not reach linkrouterd; run linkctl doctor")
            case .sharedWith(_, let mime, let others):
                Log.warning("\(others.joined(separator: ", ")) also handle\(others.count == 1 ? "s" : "") \(mime): the OpenURI portal would ask which app opens each link and could hand a login's code to an app; run linkctl doctor")
            }
        }
    }
}
