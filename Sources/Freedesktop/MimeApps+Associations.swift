/// Taking other applications' associations with a MIME type out of a
/// `mimeapps.list`, and putting exactly those back.
///
/// GIO (and so the OpenURI portal) lists a type's handlers from each
/// directory in precedence order: a file's `[Added Associations]` first, then
/// its `[Removed Associations]` join the blocklist for everything after (lower
/// directories' lists and every `mimeinfo.cache`). So an id removed in the
/// user's file must also leave that file's added associations, or GIO keeps it.
extension MimeApps {
    /// `text` with each of `ids` under `[Removed Associations]` for `mimeType`
    /// and out of `[Added Associations]`; also which ids this added to the
    /// removed ones and which it took out of the added ones, so that
    /// `restoringAssociations` can undo exactly that.
    public static func removingAssociations(_ ids: [String], for mimeType: String, in text: String?)
        -> (text: String, removed: [String], unadded: [String])
    {
        var file = KeyFile(parsing: text ?? "")
        let already = file.value(mimeType, in: "Removed Associations").map(KeyFile.list) ?? []
        let newlyRemoved = ids.filter { !already.contains($0) }
        if !newlyRemoved.isEmpty {
            file.set(mimeType, to: (already + newlyRemoved).map { $0 + ";" }.joined(), in: "Removed Associations")
        }
        let added = file.value(mimeType, in: "Added Associations").map(KeyFile.list) ?? []
        let unadded = added.filter { ids.contains($0) }
        if !unadded.isEmpty { setList(&file, mimeType, added.filter { !ids.contains($0) }, in: "Added Associations") }
        return (file.text, newlyRemoved, unadded)
    }

    /// Undoes `removingAssociations`: `removed` leave `[Removed Associations]`,
    /// `unadded` go back to the end of `[Added Associations]`; the rest is kept.
    public static func restoringAssociations(
        removed: [String], unadded: [String], for mimeType: String, in text: String?
    ) -> String {
        var file = KeyFile(parsing: text ?? "")
        let still = (file.value(mimeType, in: "Removed Associations").map(KeyFile.list) ?? []).filter {
            !removed.contains($0)
        }
        setList(&file, mimeType, still, in: "Removed Associations")
        let added = file.value(mimeType, in: "Added Associations").map(KeyFile.list) ?? []
        if !unadded.isEmpty {
            setList(&file, mimeType, added + unadded.filter { !added.contains($0) }, in: "Added Associations")
        }
        return file.text
    }

    /// Sets a list value, or removes the key when the list is empty.
    private static func setList(_ file: inout KeyFile, _ key: String, _ ids: [String], in group: String) {
        if ids.isEmpty {
            file.remove(key, in: group)
            file.removeGroupIfEmpty(group)
        } else {
            file.set(key, to: ids.map { $0 + ";" }.joined(), in: group)
        }
    }
}
