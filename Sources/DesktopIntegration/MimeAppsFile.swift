import Freedesktop
import SystemKit

/// Reading and editing one `mimeapps.list` file on disk.
public enum MimeAppsFile {
    /// The raw `[Default Applications]` value for `mimeType`, or nil if the file or key is absent.
    public static func defaultValue(for mimeType: String, in path: String) -> String? {
        guard let text = try? FileSystem.readText(path) else { return nil }
        return KeyFile(parsing: text).value(mimeType, in: "Default Applications")
    }

    /// Puts back a default as it was: `previous` "" removes the key; linkrouter's
    /// own ids are also taken out of `[Added Associations]`.
    public static func restore(_ mimeType: String, to previous: String, in path: String, removing ids: [String])
        throws(SystemError)
    {
        let text = (try? FileSystem.readText(path)) ?? ""
        var file = KeyFile(parsing: text)
        if previous.isEmpty {
            file.remove(mimeType, in: "Default Applications")
        } else {
            file.set(mimeType, to: previous, in: "Default Applications")
        }
        if let added = file.value(mimeType, in: "Added Associations") {
            let kept = KeyFile.list(added).filter { !ids.contains($0) }
            if kept.isEmpty {
                file.remove(mimeType, in: "Added Associations")
                file.removeGroupIfEmpty("Added Associations")
            } else {
                file.set(mimeType, to: kept.map { $0 + ";" }.joined(), in: "Added Associations")
            }
        }
        try FileSystem.writeAtomically(path, text: file.text, permissions: 0o644)
    }
}
