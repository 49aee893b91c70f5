import Freedesktop
import Testing

@Suite("mimeapps.list resolution")
struct MimeAppsTests {
    static let browser = "[Desktop Entry]\nType=Application\nName=B\nExec=b %u\nMimeType=x-scheme-handler/https;\n"

    func apps(_ files: [String: String], desktop: String? = nil) -> MimeApps {
        MimeApps(
            configSearchPath: ["/c", "/etc/xdg"], dataSearchPath: ["/d", "/usr/share"], currentDesktop: desktop,
            read: { files[$0] })
    }

    @Test("the user's default wins; per-desktop lists before plain")
    func precedence() {
        let files = [
            "/c/mimeapps.list": "[Default Applications]\nx-scheme-handler/https=user.desktop;\n",
            "/c/gnome-mimeapps.list": "[Default Applications]\nx-scheme-handler/https=gnome.desktop;\n",
            "/usr/share/applications/mimeapps.list": "[Default Applications]\nx-scheme-handler/https=system.desktop;\n",
            "/d/applications/user.desktop": Self.browser,
            "/usr/share/applications/gnome.desktop": Self.browser,
            "/usr/share/applications/system.desktop": Self.browser,
        ]
        #expect(apps(files).defaultApplication(for: "x-scheme-handler/https")?.id == "user.desktop")
        #expect(apps(files, desktop: "GNOME").defaultApplication(for: "x-scheme-handler/https")?.id == "gnome.desktop")
    }

    @Test("a default that is not installed falls through; exclusions are skipped (R6)")
    func fallThrough() {
        let files = [
            "/c/mimeapps.list":
                "[Default Applications]\nx-scheme-handler/https=gone.desktop;linkrouter-https.desktop;\n[Added Associations]\nx-scheme-handler/https=added.desktop;\n",
            "/d/applications/linkrouter-https.desktop": Self.browser,
            "/d/applications/added.desktop": Self.browser,
        ]
        let a = apps(files)
        #expect(a.defaultApplication(for: "x-scheme-handler/https")?.id == "linkrouter-https.desktop")
        #expect(
            a.defaultApplication(for: "x-scheme-handler/https", excluding: { $0.id.hasPrefix("linkrouter-") })?.id
                == "added.desktop")
    }

    @Test("mimeinfo.cache, removed associations, hidden entries")
    func cache() {
        let files = [
            "/usr/share/applications/mimeinfo.cache":
                "[MIME Cache]\nx-scheme-handler/https=removed.desktop;hidden.desktop;cached.desktop;\n",
            "/c/mimeapps.list": "[Removed Associations]\nx-scheme-handler/https=removed.desktop;\n",
            "/usr/share/applications/removed.desktop": Self.browser,
            "/usr/share/applications/hidden.desktop": Self.browser + "Hidden=true\n",
            "/usr/share/applications/cached.desktop": Self.browser,
        ]
        #expect(apps(files).candidates(for: "x-scheme-handler/https").map(\.id) == ["cached.desktop"])
    }

    @Test("vendor-prefixed ids are found in subdirectories")
    func subdirectories() {
        let files = ["/usr/share/applications/kde/konqueror.desktop": Self.browser]
        #expect(
            apps(files).entry(for: "kde-konqueror.desktop")?.path == "/usr/share/applications/kde/konqueror.desktop")
        #expect(apps(files).entry(for: "../x.desktop") == nil)
    }

    @Test("setting a default keeps the rest of the file")
    func settingDefault() {
        let text = MimeApps.settingDefault(
            "linkrouter-https.desktop", for: ["x-scheme-handler/https"],
            in:
                "# mine\n[Default Applications]\ntext/html=b.desktop;\n[Added Associations]\nx-scheme-handler/https=b.desktop;\n"
        )
        let f = KeyFile(parsing: text)
        #expect(text.hasPrefix("# mine\n"))
        #expect(f.value("text/html", in: "Default Applications") == "b.desktop;")
        #expect(f.value("x-scheme-handler/https", in: "Default Applications") == "linkrouter-https.desktop;")
        #expect(f.value("x-scheme-handler/https", in: "Added Associations") == "linkrouter-https.desktop;b.desktop;")
    }

    @Test("desktop entries: launchable, program, MIME types")
    func entries() {
        let e = DesktopEntry(id: "b.desktop", path: "/x/b.desktop", text: Self.browser + "TryExec=b\n")
        #expect(e.isLaunchable && e.program == "b" && e.mimeTypes == ["x-scheme-handler/https"] && e.tryExec == "b")
        #expect(!DesktopEntry(id: "l.desktop", path: "/l", text: "[Desktop Entry]\nType=Link\nURL=x\n").isLaunchable)
    }
}
