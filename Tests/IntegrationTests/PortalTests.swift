import SystemKit
import Testing

/// The OpenURI portal path (issue 20): how every Flatpak or Snap browser hands
/// a link to the host. The real xdg-desktop-portal 1.16 and its gtk chooser on
/// the test's bus under Xvfb; callers in bubblewrap with a `/.flatpak-info`.
/// With two handlers of a scheme the portal asks "Open With…" (and a pick of
/// the app would hand it the login's code); `linkctl register` leaves one.
@Suite(
    "The OpenURI portal: one handler per scheme, no chooser, nothing to the wrong app", .serialized,
    .enabled(if: Portal.unavailable == nil, "\(Portal.unavailable ?? "")"))
struct PortalTests {
    static let mime = "x-scheme-handler/com.example.app"

    /// The README's set-up: the app's own entry declares the scheme and claims part of the web site.
    /// `environment`: more for the portal world's processes.
    func world(environment: [String: String] = [:]) throws -> (Harness, Portal, TestApp) {
        let h = try Harness(register: false)
        let app = try TestApp.execApp(h.desktop, claims: ["https://example.com/app/"])
        h.desktop.extraEnvironment.merge(environment) { $1 }
        let portal = try Portal(desktop: h.desktop)
        let r = try h.desktop.linkctl("register", "com.example.app")
        #expect(r.status == 0, "\(r.errorText)")
        #expect(try h.desktop.linkctl("install", "--claim-https").status == 0)
        return (h, portal, app)
    }

    /// GIO's GNOME proxy module (glib-networking's, on every GNOME desktop) where this machine keeps its modules.
    static let gnomeProxyModule: String? = FileSystem.list("/usr/lib").map {
        "/usr/lib/\($0)/gio/modules/libgiognomeproxy.so"
    }
    .first(where: FileSystem.exists)

    @Test(
        "the portal world comes up whatever GIO modules the machine has (glib-networking's GNOME proxy module, and none), and a link goes through it each way; the control: the schemas withheld from the portal, it aborts where the module is"
    )
    func gioModules() throws {
        // Both states in one run: scripts/setup --test installs glib-networking, and GIO_MODULE_DIR at an empty
        // directory is a machine without it.
        let module = try #require(
            Self.gnomeProxyModule,
            "no libgiognomeproxy.so under /usr/lib/*/gio/modules; scripts/setup --test installs glib-networking")
        let none = TestDirectory("lr-gio-none")
        for (state, environment) in [
            ("with \(module)", [String: String]()), ("with no GIO modules", ["GIO_MODULE_DIR": none.path]),
        ] {
            let (h, portal, _) = try world(environment: environment)
            let web = "https://example.com/blog/\(state.count)"
            #expect(try portal.open(web) == 0, "\(state)")
            #expect(h.desktop.waitForBrowser(Harness.browser) == [web], "\(state)")
        }
        // The control: the portal given no schemas, as before issue 50, aborts reading the GNOME proxy settings.
        let h = try Harness(register: false)
        let refused = #expect(throws: SystemError.self) {
            try Portal(desktop: h.desktop, extraArguments: ["--schemas-for-gtk-only"])
        }
        #expect(
            refused?.description.contains("exited: portal") == true, "\(refused.map(String.init(describing:)) ?? "")")
        let log = (try? FileSystem.readText(h.desktop.root + "/portal/portal.log")) ?? ""
        #expect(log.contains("No GSettings schemas are installed"), "\(log)")
    }

    @Test(
        "the control: with the app's entry still a handler the portal opens its chooser and launches nobody; doctor names it; register leaves linkrouter alone"
    )
    func chooserControl() throws {
        let (h, portal, app) = try world()
        // Put back what register took out: the app as a second handler, as before issue 20.
        let list = h.desktop.mimeappsList
        let text = try FileSystem.readText(list)
        try FileSystem.writeAtomically(
            list, text: text.replacingOccurrences(of: "[Removed Associations]\n\(Self.mime)=\(app.id);\n", with: ""),
            permissions: 0o644)
        let doctor = try h.desktop.linkctl("doctor", "--json")
        #expect(
            doctor.text.contains("\(app.id) can take it too")
                && doctor.text.contains("linkctl register com.example.app"), "\(doctor.text)")
        let (path, url) = try h.app.beginQuiet()
        let out = h.desktop.root + "/chooser.out"
        let caller = try portal.openInBackground(
            "com.example.app:/callback?code=C&state=\(Harness.state(of: url))", output: out)
        let chooser = eventuallyValue(timeoutMilliseconds: 20_000) { portal.windows(named: "Open With").first }
        #expect(chooser != nil, "the portal asks which app opens the link")
        // Escape, again if the dialog did not have the key yet (a loaded machine maps it late): until it answers.
        func cancelled() -> Bool { Portal.response((try? FileSystem.readText(out)) ?? "") == 1 }
        #expect(
            eventually(timeoutMilliseconds: 30_000) {
                if let chooser, !cancelled() { try? portal.press(["Escape"], in: chooser) }
                return eventually(timeoutMilliseconds: 2_000, cancelled)
            }, "cancelled")
        Subprocess.wait(caller, timeoutMilliseconds: 60_000)
        #expect(try h.app.status(path) == "pending")
        #expect(app.opened().isEmpty)
        // register again: one handler, and doctor is content.
        #expect(try h.desktop.linkctl("register", "com.example.app").status == 0)
        #expect(!(try h.desktop.linkctl("doctor", "--json").text.contains("can take it too")))
        #expect(try portal.open("com.example.app:/callback?code=C&state=\(Harness.state(of: url))") == 0)
        #expect(try h.app.wait(path)["code"] == "C")
        #expect(app.opened().isEmpty)
    }

    @Test(
        "through the portal: a callback reaches its owner, an error callback fails the session with the provider's words, the app gets neither"
    )
    func callbacks() throws {
        let (h, portal, app) = try world()
        let (path, url) = try h.app.beginQuiet()
        #expect(try portal.open("com.example.app:/callback?code=4%2F0Aportal&state=\(Harness.state(of: url))") == 0)
        #expect(try h.app.wait(path)["code"] == "4/0Aportal")
        let (failing, url2) = try h.app.beginQuiet()
        #expect(
            try portal.open(
                "com.example.app:/callback?error=access_denied&error_description=The%20user%20denied%20access&state=\(Harness.state(of: url2))"
            ) == 0)
        let error = dbusError { _ = try h.app.wait(failing) }
        #expect(error?.name == errorPrefix + "AuthorizationFailed")
        #expect(error?.message.contains("access_denied (The user denied access)") == true, "\(error?.message ?? "")")
        #expect(app.opened().isEmpty, "no callback reached the app")
        #expect(h.daemonAnswers)
    }

    @Test(
        "through the portal: a non-ASCII deep link (with the caller's activation token) and a claimed https link reach the app, an unclaimed one the browser, each byte for byte"
    )
    func deepLinks() throws {
        let (h, portal, app) = try world()
        let deep = "com.example.app:/search?q=caf%C3%A9%20au%20lait"
        #expect(try portal.open(deep, activationToken: "token-from-the-sandboxed-browser") == 0)
        #expect(app.waitForOpens(1) == [deep])
        // The portal puts the caller's activation token in the handler's environment; it reaches the app.
        #expect(app.lines().first?["activation_token"] as? String == "token-from-the-sandboxed-browser")
        let claimed = "https://example.com/app/orders/7?x=%2F"
        #expect(try portal.open(claimed) == 0)
        #expect(app.waitForOpens(2).last == claimed)
        let web = "https://example.com/blog/caf%C3%A9"
        #expect(try portal.open(web) == 0)
        #expect(h.desktop.waitForBrowser(Harness.browser) == [web])
        #expect(app.opened().count == 2)
    }

    @Test(
        "a pick of the app the portal remembers would win over the default: register forgets it, doctor names it, the code goes to its owner; uninstall gives it back"
    )
    func rememberedPick() throws {
        let (h, portal, app) = try world()
        let requester = "org.example.SandboxedBrowser"
        try portal.remember("org.example.ExecApp", for: Self.mime, requester: requester)
        let doctor = try h.desktop.linkctl("doctor")
        #expect(doctor.text.contains("remembers org.example.ExecApp as \(requester)'s pick"), "\(doctor.text)")
        #expect(try h.desktop.linkctl("register", "com.example.app").status == 0)
        #expect(!(try portal.picks(Self.mime)).contains("ExecApp"), "the pick is forgotten")
        let (path, url) = try h.app.beginQuiet()
        #expect(
            try portal.open("com.example.app:/callback?code=mine&state=\(Harness.state(of: url))", as: requester) == 0)
        #expect(try h.app.wait(path)["code"] == "mine")
        #expect(app.opened().isEmpty)
        #expect(try h.desktop.linkctl("uninstall").status == 0)
        #expect(
            try portal.picks(Self.mime).contains("'\(requester)': ['org.example.ExecApp', '3', '3']"),
            "uninstall restores what was there")
    }
}
