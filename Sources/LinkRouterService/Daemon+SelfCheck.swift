import DesktopIntegration
import SystemKit

extension Daemon {
    /// Start-up self-check (threat model E3): each handler linkrouter
    /// installed should still be the default for its scheme. Another program
    /// may have taken one over; links of that scheme would then never reach
    /// the daemon. Security does not rest on this (state, PKCE and the exact
    /// callback match do), so it warns and points at `linkctl doctor`.
    func checkHandlers() {
        guard let record = InstallRecord.read(installRecordPath) else { return }
        let db = database
        for path in record.files where FileSystem.baseName(path).hasPrefix(OwnEntries.idPrefix) {
            let id = FileSystem.baseName(path)
            guard let entry = db.entry(id) else {
                Log.warning("Installed handler \(id) is gone; run linkctl doctor")
                continue
            }
            for mime in entry.mimeTypes {
                let current = db.mimeApps.defaultApplication(for: mime)?.id
                if current != id {
                    Log.warning("\(mime) is handled by \(current ?? "nothing"), not by linkrouter's \(id): those links will not reach linkrouterd; run linkctl doctor")
                }
            }
        }
    }
}
