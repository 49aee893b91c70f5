import Freedesktop
import Testing

@Suite("mimeapps.list: taking associations out and putting exactly those back")
struct MimeAppsAssociationsTests {
    static let app =
        "[Desktop Entry]\nType=Application\nName=A\nExec=a %u\nMimeType=x-scheme-handler/com.example.app;\n"
    static let mime = "x-scheme-handler/com.example.app"

    func apps(_ files: [String: String]) -> MimeApps {
        MimeApps(
            configSearchPath: ["/c"], dataSearchPath: ["/d", "/usr/share"], currentDesktop: nil, read: { files[$0] })
    }

    @Test(
        "a removed association takes an entry out of the handlers, also one the same file had added; undoing gives the text back"
    )
    func roundTrip() {
        let before =
            "# mine\n[Default Applications]\n\(Self.mime)=ours.desktop;\n\n[Added Associations]\n\(Self.mime)=ours.desktop;app.desktop;\n"
        var files = [
            "/c/mimeapps.list": before,
            "/d/applications/ours.desktop": Self.app, "/d/applications/app.desktop": Self.app,
            "/usr/share/applications/other.desktop": Self.app,
            "/usr/share/applications/mimeinfo.cache": "[MIME Cache]\n\(Self.mime)=other.desktop;\n",
        ]
        #expect(apps(files).candidates(for: Self.mime).map(\.id) == ["ours.desktop", "app.desktop", "other.desktop"])
        let edit = MimeApps.removingAssociations(["app.desktop", "other.desktop"], for: Self.mime, in: before)
        #expect(edit.removed == ["app.desktop", "other.desktop"] && edit.unadded == ["app.desktop"])
        files["/c/mimeapps.list"] = edit.text
        #expect(apps(files).candidates(for: Self.mime).map(\.id) == ["ours.desktop"])
        #expect(edit.text.contains("[Removed Associations]\n\(Self.mime)=app.desktop;other.desktop;"))
        #expect(edit.text.hasPrefix("# mine\n"), "comments are kept")
        let undone = MimeApps.restoringAssociations(
            removed: edit.removed, unadded: edit.unadded, for: Self.mime, in: edit.text)
        #expect(undone == before)
    }

    @Test("what the user had removed already stays removed after an undo; only what was added goes")
    func keepsTheUsers() {
        let before = "[Removed Associations]\n\(Self.mime)=old.desktop;\n"
        let edit = MimeApps.removingAssociations(["old.desktop", "app.desktop"], for: Self.mime, in: before)
        #expect(edit.removed == ["app.desktop"] && edit.unadded.isEmpty)
        #expect(
            MimeApps.restoringAssociations(removed: edit.removed, unadded: [], for: Self.mime, in: edit.text) == before)
        // Nothing to remove changes nothing.
        let none = MimeApps.removingAssociations([], for: Self.mime, in: before)
        #expect(none.text == before && none.removed.isEmpty)
    }

    @Test("list values escape a ';' inside an item and read back the same")
    func listValues() {
        let items = ["https://example.com/a;b/", "x.desktop"]
        #expect(KeyFile.list(KeyFile.listValue(items)) == items)
    }
}
