import Foundation
import Glibc
import LinkRouterCore
import SystemKit
import Testing

/// A person's account reaches a sandboxed app only with the person's yes
/// (issue 36): the prompt on a real notification server (Debian's dunst under
/// Xvfb), its actions chosen from dunst's own context menu as a person would;
/// the app made as Flatpak makes one (bubblewrap, `/.flatpak-info`, its bus
/// through xdg-dbus-proxy).
@Suite("Consent: the person's yes before their account goes to an app")
struct ConsentTests {
    @Test(
        "a Flatpak app's GetToken for the person's account asks them, naming the verified app: Allow once (a token, then asked again), Deny (AccessDenied, no token), after a Deny not asked again for a while; Always allow (no prompt after, listed by linkctl grants; revoked, asked again; gone with the account); with no notification server, refused at once",
        .enabled(if: FlatpakSandbox.unavailable == nil, "\(FlatpakSandbox.unavailable ?? "")"))
    func prompts() throws {
        let w = try AccountTests.World()
        let dunst = try Dunst(desktop: w.desktop)
        #expect(try w.add("work").status == 0)
        #expect(try w.login("work").status == 0)
        let hostToken = try w.desktop.linkctl("token", "work").text.trimmingCharacters(in: .newlines)
        let ide = try FlatpakSandbox(desktop: w.desktop, appID: "org.example.IDE")
        let ideBus = try ide.startProxy(talk: ["org.linkrouter.LinkRouter1"])
        // A second app, for after the first is told no (a Deny keeps it from asking again for a minute).
        let editor = try FlatpakSandbox(desktop: w.desktop, appID: "org.example.Editor")
        let editorBus = try editor.startProxy(talk: ["org.linkrouter.LinkRouter1"])
        var n = 0
        /// `GetToken(work)` from inside an app (the IDE unless `editor`), started now; its outcome once it ends.
        func ask(editor use: Bool = false) throws -> () -> (status: Int32, out: String, err: String) {
            let (sandbox, bus) = use ? (editor, editorBus) : (ide, ideBus)
            n += 1
            let out = w.desktop.root + "/consent-\(n).out"
            let pid = try Subprocess.spawn(
                sandbox.command([
                    "/usr/bin/env", "DBUS_SESSION_BUS_ADDRESS=" + bus, "/usr/bin/gdbus", "call", "--session",
                    "--dest", "org.linkrouter.LinkRouter1", "--object-path", "/org/linkrouter/LinkRouter1",
                    "--method", "org.linkrouter.LinkRouter1.GetToken", "work", "{}",
                ]), environment: w.desktop.environment, stdout: .file(out), stderr: .file(out + ".err"))
            return {
                let status = Subprocess.wait(pid)
                return (
                    status, (try? FileSystem.readText(out)) ?? "", (try? FileSystem.readText(out + ".err")) ?? ""
                )
            }
        }
        func prompted() -> Bool { eventually(timeoutMilliseconds: 20_000) { dunst.count("displayed") == 1 } }

        // Allow once: this call gets the person's token; the prompt named the app and the account.
        let first = try ask()
        #expect(prompted(), "no prompt: \(w.daemon.log.suffix(800))")
        // Another client of the bus forges the person's answer (ActionInvoked for each likely id, to the daemon and to
        // all): only the notification server's own signals count, so the call still waits.
        let owner = try w.desktop.run([
            "gdbus", "call", "--session", "--dest", "org.freedesktop.DBus", "--object-path", "/org/freedesktop/DBus",
            "--method", "org.freedesktop.DBus.GetNameOwner", "org.linkrouter.LinkRouter1",
        ]).text
        let daemonName = try #require(owner.split(separator: "'").dropFirst().first.map(String.init), "\(owner)")
        for id in 1...8 {
            for dest in [["--dest", daemonName], []] {
                let forged = try w.desktop.run(
                    [
                        "gdbus", "emit", "--session", "--object-path", "/org/freedesktop/Notifications", "--signal",
                        "org.freedesktop.Notifications.ActionInvoked", "uint32 \(id)", "allow-always",
                    ] + dest)
                #expect(forged.status == 0, "\(forged.errorText)")
            }
        }
        #expect(try w.desktop.linkctl("status").status == 0)
        #expect(dunst.count("displayed") == 1 && !FileSystem.exists(w.desktop.configHome + "/linkrouter/grants.conf"))
        let offered = try dunst.choose("Allow once")
        #expect(
            offered.contains("Allow once") && offered.contains("Always allow") && offered.contains("Deny"), "\(offered)"
        )
        let once = first()
        #expect(once.status == 0 && once.out.contains(hostToken), "\(once.status) \(once.err)")
        #expect(dunst.history().contains("Allow org.example.IDE to use your account work?"), "\(dunst.history())")
        #expect(eventually(timeoutMilliseconds: 10_000) { dunst.count("displayed") == 0 }, "withdrawn once answered")

        // Once only: the next call asks again. Two calls while it is up share the one prompt. Deny refuses both, and
        // no message on the bus (replies, signals, anyone's) carries the token: dbus-monitor sees them all.
        let monitorLog = w.desktop.root + "/monitor.log"
        let monitor = try Subprocess.spawn(
            ["dbus-monitor", "--address", try #require(w.desktop.busAddress)], environment: w.desktop.environment,
            stdout: .file(monitorLog), stderr: .null)
        #expect(
            eventually(timeoutMilliseconds: 10_000) {
                ((try? FileSystem.readText(monitorLog)) ?? "").contains("NameAcquired")
            })
        let second = try ask()
        #expect(prompted())
        let third = try ask()
        try dunst.choose("Deny")
        for outcome in [second(), third()] {
            #expect(
                outcome.status != 0 && outcome.err.contains("AccessDenied") && outcome.err.contains("denied")
                    && !outcome.out.contains(hostToken), "\(outcome.status) \(outcome.err)")
        }

        Subprocess.stop(monitor, name: "dbus-monitor")
        let seen = (try? FileSystem.readText(monitorLog, maxBytes: 1 << 24)) ?? ""
        #expect(seen.contains("GetToken") && seen.contains("AccessDenied"), "the monitor saw the calls and refusals")
        #expect(!seen.contains(hostToken), "no token on the bus while the person said no")

        // Told no, the IDE is refused at once for a while, without a prompt: it cannot wear the person down.
        let pressing = try ask()()
        #expect(
            pressing.status != 0 && pressing.err.contains("AccessDenied") && pressing.err.contains("not asked again")
                && dunst.count("displayed") == 0, "\(pressing.err)")

        // Always allow (the editor): a token now and, without a prompt, after. The editor is named as the person knows
        // it, from the entry Flatpak exported for its id (an entry of that id in the user's own applications, which an
        // app with access to the home directory could write, is not read).
        let exports = w.desktop.dataHome + "/flatpak/exports/share/applications"
        try FileSystem.makeDirectories(exports)
        try FileSystem.writeAtomically(
            exports + "/org.example.Editor.desktop",
            text: "[Desktop Entry]\nType=Application\nName=Text Editor\nExec=editor %U\n", permissions: 0o644)
        try FileSystem.makeDirectories(w.desktop.applications)
        try FileSystem.writeAtomically(
            w.desktop.applications + "/org.example.Editor.desktop",
            text: "[Desktop Entry]\nType=Application\nName=Firefox\nExec=editor %U\n", permissions: 0o644)
        let fourth = try ask(editor: true)
        #expect(prompted())
        try dunst.choose("Always allow")
        let always = fourth()
        #expect(
            dunst.history().contains("Allow Text Editor (org.example.Editor, Flatpak) to use your account work?"),
            "\(dunst.history())")
        #expect(always.status == 0 && always.out.contains(hostToken), "\(always.err)")
        let fifth = try ask(editor: true)()
        #expect(fifth.status == 0 && fifth.out.contains(hostToken) && dunst.count("displayed") == 0, "\(fifth.err)")
        let grants = try w.desktop.linkctl("grants")
        #expect(
            grants.status == 0 && grants.text.contains("flatpak:org.example.Editor") && grants.text.contains("work")
                && !grants.text.contains("org.example.IDE"), "\(grants.text)")

        // Bad revocations change nothing: not an app's label, an app with no grant, and an app ending its own grant.
        for (args, says) in [
            (["host", "work"], "not an app's label"), (["flatpak:org.example.Nobody", "work"], "has no grant"),
            (["flatpak:org.example.Editor", "nobody"], "UnknownAccount"),
        ] {
            let r = try w.desktop.linkctl(["grants", "revoke"] + args)
            #expect(r.status != 0 && r.errorText.contains(says), "\(args): \(r.status) \(r.errorText)")
        }
        let selfRevoke = try w.desktop.run(
            editor.command([
                "/usr/bin/env", "DBUS_SESSION_BUS_ADDRESS=" + editorBus, "/usr/bin/gdbus", "call", "--session",
                "--dest", "org.linkrouter.LinkRouter1", "--object-path", "/org/linkrouter/LinkRouter1", "--method",
                "org.linkrouter.LinkRouter1.RevokeGrant", "flatpak:org.example.Editor", "work",
            ]))
        #expect(
            selfRevoke.status != 0 && selfRevoke.errorText.contains("AccessDenied"), "\(selfRevoke.errorText)")
        #expect(try w.desktop.linkctl("grants").text.contains("flatpak:org.example.Editor"), "untouched")

        // Revoked: asked again.
        let revoked = try w.desktop.linkctl("grants", "revoke", "flatpak:org.example.Editor", "work")
        #expect(revoked.status == 0, "\(revoked.errorText)")
        #expect(!(try w.desktop.linkctl("grants").text.contains("org.example.Editor")))
        let sixth = try ask(editor: true)
        #expect(prompted())
        try dunst.choose("Allow once")
        #expect(sixth().status == 0)

        // Allowed always again, then the account removed: its grants go with it (a new `work` is not the one the
        // person allowed).
        let seventh = try ask(editor: true)
        #expect(prompted())
        try dunst.choose("Always allow")
        #expect(seventh().status == 0)
        #expect(try w.desktop.linkctl("grants").text.contains("flatpak:org.example.Editor"))
        #expect(try w.desktop.linkctl("account", "remove", "work").status == 0)
        let none = try w.desktop.linkctl("grants")
        #expect(none.status == 0 && !none.text.contains("org.example.Editor"), "\(none.text)")
        let grantsFile = (try? FileSystem.readText(w.desktop.configHome + "/linkrouter/grants.conf")) ?? ""
        #expect(!grantsFile.contains("work"), "\(grantsFile)")
        #expect(try w.add("work").status == 0)

        // No notification server: refused at once, saying no one could be asked.
        withExtendedLifetime(dunst) {}
        Subprocess.stop(dunst.pid, name: "dunst")
        let started = Clock.monotonicMilliseconds()
        let alone = try ask(editor: true)()
        #expect(
            alone.status != 0 && alone.err.contains("AccessDenied") && alone.err.contains("no one could be asked"),
            "\(alone.err)")
        #expect(Clock.monotonicMilliseconds() - started < 10_000, "refused within seconds")
        #expect(try w.desktop.linkctl("status").status == 0, "the daemon is up")
    }

    /// A D-Bus call from inside `sandbox` through its proxied `bus`, started now; its outcome once it ends.
    static func inside(
        _ sandbox: FlatpakSandbox, bus: String, _ w: AccountTests.World, dest: String = "org.linkrouter.LinkRouter1",
        path: String = "/org/linkrouter/LinkRouter1", _ method: String, _ args: [String]
    ) throws -> () -> (status: Int32, out: String, err: String) {
        try inside(sandbox, bus: bus, desktop: w.desktop, dest: dest, path: path, method, args)
    }

    /// The same, in any test's desktop.
    static func inside(
        _ sandbox: FlatpakSandbox, bus: String, desktop: TestDesktop, dest: String = "org.linkrouter.LinkRouter1",
        path: String = "/org/linkrouter/LinkRouter1", _ method: String, _ args: [String]
    ) throws -> () -> (status: Int32, out: String, err: String) {
        let out = desktop.root + "/inside-\(UInt64.random(in: 0..<UInt64.max)).out"
        let pid = try Subprocess.spawn(
            sandbox.command(
                [
                    "/usr/bin/env", "DBUS_SESSION_BUS_ADDRESS=" + bus, "/usr/bin/gdbus", "call", "--session", "--dest",
                    dest, "--object-path", path, "--method", method,
                ] + args), environment: desktop.environment, stdout: .file(out), stderr: .file(out + ".err"))
        return {
            let status = Subprocess.wait(pid)
            return (status, (try? FileSystem.readText(out)) ?? "", (try? FileSystem.readText(out + ".err")) ?? "")
        }
    }

    /// `Notify` from inside `sandbox` (replacing `replaces`, 0 for none); the id the server gave.
    static func notify(
        _ sandbox: FlatpakSandbox, bus: String, _ w: AccountTests.World, replaces: UInt32 = 0, summary: String,
        actions: [String] = []
    ) throws -> UInt32? {
        let list = "[" + actions.map { "'\($0)'" }.joined(separator: ", ") + "]"
        let r = try inside(
            sandbox, bus: bus, w, dest: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
            "org.freedesktop.Notifications.Notify",
            ["org.example.Updater", "\(replaces)", "", summary, "All done.", list, "{}", "0"])()
        // "(uint32 5,)"
        return r.out.split(whereSeparator: { !$0.isNumber }).last.flatMap { UInt32($0) }
    }

    @Test(
        "a prompt replaced by the app's own notification (GNOME Shell lets any client replace any id, and tells everyone of the person's click from its own name): a click on the app's button grants nothing and hands out nothing, whatever key it carries (allow-always, allow-once, default); the prompt's own buttons still work",
        .enabled(if: FlatpakSandbox.unavailable == nil, "\(FlatpakSandbox.unavailable ?? "")"))
    func replacedPrompt() throws {
        let w = try AccountTests.World()
        let shell = try ShellNotifications(desktop: w.desktop)
        #expect(try w.add("work").status == 0)
        #expect(try w.login("work").status == 0)
        let hostToken = try w.desktop.linkctl("token", "work").text.trimmingCharacters(in: .newlines)
        let updater = try FlatpakSandbox(desktop: w.desktop, appID: "org.example.Updater")
        // The app may talk to the notification server, as many Flathub apps may.
        let bus = try updater.startProxy(talk: ["org.linkrouter.LinkRouter1", "org.freedesktop.Notifications"])
        var prompts = 0
        for key in ["allow-always", "allow-once", "default"] {
            // It learns the id counter from a notification of its own, then asks for the person's account.
            let own = try #require(try Self.notify(updater, bus: bus, w, summary: "Checking for updates"))
            let call = try Self.inside(updater, bus: bus, w, "org.linkrouter.LinkRouter1.GetToken", ["work", "{}"])
            prompts += 1
            let prompt = try #require(
                eventuallyValue(timeoutMilliseconds: 20_000) {
                    shell.notifications().filter { $0.summary.hasPrefix("Allow org.example.Updater") }
                        .dropFirst(prompts - 1).first
                }, "no prompt: \(w.daemon.log.suffix(600))")
            #expect(prompt.id == own + 1, "the app could tell the prompt's id")
            // Its keys are the prompt's own: none of them is a word another program could guess.
            #expect(
                prompt.actions.map(\.label) == ["Allow once", "Always allow", "Deny"]
                    && prompt.actions.allSatisfy { $0.key.count > 20 && $0.key != key }, "\(prompt.actions)")
            // The app puts its own notification in the prompt's place, with a button whose key it chose.
            let replaced = try Self.notify(
                updater, bus: bus, w, replaces: prompt.id, summary: "Updates installed", actions: [key, "OK"])
            #expect(replaced == prompt.id, "replaced in place")
            try shell.click(prompt.id, "OK")
            let outcome = call()
            #expect(
                outcome.status != 0 && outcome.err.contains("AccessDenied") && outcome.err.contains("never offered")
                    && !outcome.out.contains(hostToken), "\(key): \(outcome.status) \(outcome.out) \(outcome.err)")
            #expect(!FileSystem.exists(w.desktop.configHome + "/linkrouter/grants.conf"), "no grant")
        }
        // The prompt's own button: the person's yes.
        let call = try Self.inside(updater, bus: bus, w, "org.linkrouter.LinkRouter1.GetToken", ["work", "{}"])
        let prompt = try #require(
            eventuallyValue(timeoutMilliseconds: 20_000) {
                shell.notifications().filter { $0.summary.hasPrefix("Allow org.example.Updater") }.dropFirst(3).first
            })
        try shell.click(prompt.id, "Allow once")
        let allowed = call()
        #expect(allowed.status == 0 && allowed.out.contains(hostToken), "\(allowed.err)")
        #expect(try w.desktop.linkctl("status").status == 0, "the daemon is up")
    }

    @Test(
        "Always allow keeps what the prompt named: after an audience-only yes the app gets that audience's token with no prompt, and is asked again for the account's own token, another audience and a resource; after a resource-only yes, that resource without a prompt, the account's own and another resource asked; linkctl grants says what each covers; the prompt says it first; app-chosen text is escaped for a server that reads markup",
        .enabled(if: FlatpakSandbox.unavailable == nil, "\(FlatpakSandbox.unavailable ?? "")"))
    func narrowGrants() throws {
        let w = try AccountTests.World()
        let shell = try ShellNotifications(desktop: w.desktop)
        #expect(try w.add("work").status == 0)
        #expect(try w.login("work").status == 0)
        let app = try FlatpakSandbox(desktop: w.desktop, appID: "org.example.Calendar")
        let bus = try app.startProxy(talk: ["org.linkrouter.LinkRouter1"])
        var seen = 0
        /// `GetToken(work, options)` from the app; the prompt it raised (nil: none within a few seconds, as when a
        /// grant covers it) and the call's outcome once `answer` (a button, or nil to dismiss) is given.
        func ask(_ options: String, answer: String?) throws -> (
            ShellNotifications.Shown?, (status: Int32, out: String, err: String)
        ) {
            let call = try Self.inside(app, bus: bus, w, "org.linkrouter.LinkRouter1.GetToken", ["work", options])
            let prompt = eventuallyValue(timeoutMilliseconds: answer == "none" ? 3_000 : 20_000) {
                shell.notifications().count > seen ? shell.notifications()[seen] : nil
            }
            if let prompt {
                seen += 1
                if let answer {
                    try shell.click(prompt.id, answer)
                } else {
                    _ = try w.desktop.run([
                        "gdbus", "call", "--session", "--dest", shell.uniqueName, "--object-path", "/person",
                        "--method", "org.linkrouter.Test.Person.Dismiss", "\(prompt.id)",
                    ])
                }
            }
            return (prompt, call())
        }
        // An audience-only "Always allow".
        let (first, got) = try ask("{'audience': <'calendar-readonly'>}", answer: "Always allow")
        let body = try #require(first?.body)
        #expect(body.contains("a token for audience “calendar-readonly” of your account work"), "\(body)")
        #expect(body.contains("“Always allow” covers only such a token (or a narrower one), never the account's own"))
        #expect(got.status == 0 && got.out.contains("calendar-readonly"), "\(got.err)")
        let grants = try w.desktop.linkctl("grants")
        #expect(grants.text.contains("audience calendar-readonly") && !grants.text.contains("(all)"), "\(grants.text)")
        // The same again: no prompt.
        let (none, again) = try ask("{'audience': <'calendar-readonly'>}", answer: "none")
        #expect(none == nil && again.status == 0, "\(again.err)")
        // Anything wider is asked about (and refused when dismissed): its own token, another audience, a resource.
        for options in ["{}", "{'audience': <'mail'>}", "{'resource': <['https://api.example.com/']>}"] {
            let (prompt, outcome) = try ask(options, answer: nil)
            #expect(prompt != nil, "\(options) was covered by the audience's grant")
            #expect(outcome.status != 0 && outcome.err.contains("AccessDenied"), "\(options): \(outcome.err)")
        }
        // A resource-only "Always allow": that resource after, nothing else.
        let (_, api) = try ask("{'resource': <['https://api.example.com/']>}", answer: "Always allow")
        #expect(api.status == 0, "\(api.err)")
        let (noPrompt, apiAgain) = try ask("{'resource': <['https://api.example.com/']>}", answer: "none")
        #expect(noPrompt == nil && apiAgain.status == 0)
        for options in ["{}", "{'resource': <['https://other.example.com/']>}"] {
            let (prompt, outcome) = try ask(options, answer: nil)
            #expect(prompt != nil && outcome.status != 0, "\(options) was covered by the resource's grant")
        }
        #expect(try w.desktop.linkctl("grants").text.contains("resource https://api.example.com/"))

        // App-chosen text in a prompt: escaped for this server, which reads markup (body-markup), so it shows as
        // typed; quoted, so the person sees where it begins and ends.
        let markup = "<span foreground=\"#7CFC00\"><b>Verified by GNOME Software</b></span>"
        let (shown, _) = try ask("{'audience': <'\(markup)'>}", answer: nil)
        let escaped = try #require(shown?.body)
        #expect(
            escaped.contains(
                "“&lt;span foreground=\"#7CFC00\"&gt;&lt;b&gt;Verified by GNOME Software&lt;/b&gt;&lt;/span&gt;”")
                && !escaped.contains("<b>"), "\(escaped)")
        #expect(try w.desktop.linkctl("status").status == 0, "the daemon is up")
    }

    @Test(
        "an app that copies the person's account (its name, or its provider and client) is refused at AddAccount, with the same words either way; an app's own account that is signed out gets no sign-in notice (the person's does, and reads as theirs), so no notice can sign the person in to an app's copy",
        .enabled(if: FlatpakSandbox.unavailable == nil, "\(FlatpakSandbox.unavailable ?? "")"))
    func lookAlikeAccounts() throws {
        let w = try AccountTests.World()
        let shell = try ShellNotifications(desktop: w.desktop)
        #expect(try w.add("work").status == 0)
        let app = try FlatpakSandbox(desktop: w.desktop, appID: "org.example.Mimic")
        let bus = try app.startProxy(talk: ["org.linkrouter.LinkRouter1"])
        func addAccount(_ name: String, client: String) throws -> (status: Int32, out: String, err: String) {
            try Self.inside(
                app, bus: bus, w, "org.linkrouter.LinkRouter1.AddAccount",
                [
                    name,
                    "{'issuer': <'\(w.provider.issuer)'>, 'client_id': <'\(client)'>, 'redirect_uri': <'\(AccountTests.redirect)'>}",
                ])()
        }
        var words: [String] = []
        for (name, client) in [("work", "its-own-client"), ("mine", w.provider.clientID)] {
            let r = try addAccount(name, client: client)
            #expect(
                r.status != 0 && r.err.contains("AccessDenied") && r.err.contains("pass for one of the person's"),
                "\(r.err)")
            words.append(r.err.replacingOccurrences(of: name, with: "NAME"))
        }
        #expect(words[0] == words[1], "the app learns no more than that it is taken")
        let listed = try w.desktop.linkctl("accounts", "--json").text
        #expect(!listed.contains("org.example.Mimic"), "nothing declared: \(listed)")
        // Its own account (its own client, not signed in): GetToken says so, and no notification is posted.
        let own = try addAccount("mine", client: "its-own-client")
        #expect(own.status == 0, "\(own.err)")
        let token = try Self.inside(app, bus: bus, w, "org.linkrouter.LinkRouter1.GetToken", ["mine", "{}"])()
        #expect(token.status != 0 && token.err.contains("NotSignedIn"), "\(token.err)")
        // The person's, signed out too: a notice, naming it as theirs. Seen after the app's call, so had the app's
        // been posted it would be in the server's log before it.
        let person = try w.desktop.linkctl("token", "work")
        #expect(person.status != 0)
        let notice = try #require(shell.waitFor(1))
        #expect(notice.summary == "Sign in to work", "\(shell.notifications().map(\.summary))")
        #expect(
            shell.notifications().count == 1, "the app's account got a notice: \(shell.notifications().map(\.summary))")
    }

    @Test(
        "a host program's name in a confirm prompt, as it names itself, is text: escaped for a server that reads markup (body-markup), sent as typed to one that says it does not (it shows a body as it comes), never in the summary, and quoted"
    )
    func programNameAsText() throws {
        for markup in [true, false] {
            let h = try Harness()
            let shell = try ShellNotifications(desktop: h.desktop, markup: markup)
            #expect(
                try h.desktop.linkctl(
                    "account", "add", "work", "--issuer", "https://id.example.com", "--client-id", "app", "--confirm"
                ).status == 0)
            // The program's executable is named in markup (a file name may hold anything but '/').
            let dir = h.desktop.root + "/odd"
            try FileSystem.makeDirectories(dir, permissions: 0o700)
            let name = "<b>Safe&Verified<b>"
            #expect(try h.desktop.run(["cp", Paths.linkctl, dir + "/" + name]).status == 0)
            try FileSystem.symlink(Paths.linkctlFull, at: dir + "/" + LinkctlLayout.fullName)
            let out = h.desktop.root + "/odd.out"
            let pid = try Subprocess.spawn(
                [dir + "/" + name, "token", "work"], environment: h.desktop.environment, stdout: .file(out),
                stderr: .file(out + ".err"))
            let prompt = try #require(shell.waitFor(1), "no prompt: \(h.daemon.log.suffix(600))")
            #expect(prompt.summary == "Allow a program to use your account work?", "\(prompt.summary)")
            if markup {
                #expect(
                    prompt.body.contains("“&lt;b&gt;Safe&amp;Verified&lt;b&gt;” (as it names itself)")
                        && !prompt.body.contains("<b>"), "\(prompt.body)")
            } else {
                #expect(prompt.body.contains("“<b>Safe&Verified<b>” (as it names itself)"), "\(prompt.body)")
            }
            try shell.click(prompt.id, "Deny")
            #expect(Subprocess.wait(pid) != 0)
            #expect(h.daemonAnswers)
        }
    }

    @Test(
        "an account declared --confirm: each host program's token waits on the person, the prompt naming the program as it names itself (its executable here) with Allow once and Deny only (nothing is remembered for a name a program chooses); Deny is AccessDenied with no token; an account without it is never asked"
    )
    func hostConfirm() throws {
        let w = try AccountTests.World()
        let dunst = try Dunst(desktop: w.desktop)
        #expect(try w.add("work", ["--confirm"]).status == 0)
        #expect(try w.add("plain").status == 0)
        #expect(try w.login("work").status == 0)
        #expect(try w.login("plain").status == 0)
        #expect(try w.desktop.linkctl("token", "plain").status == 0 && dunst.count("displayed") == 0)
        var calls = 0
        func token() throws -> () -> (status: Int32, text: String, errorText: String) {
            calls += 1
            let out = w.desktop.root + "/confirm-\(calls).out"
            let pid = try Subprocess.spawn(
                [Paths.linkctl, "token", "work"], environment: w.desktop.environment, stdout: .file(out),
                stderr: .file(out + ".err"))
            return {
                let status = Subprocess.wait(pid)
                return (status, (try? FileSystem.readText(out)) ?? "", (try? FileSystem.readText(out + ".err")) ?? "")
            }
        }
        let allowed = try token()
        #expect(
            eventually(timeoutMilliseconds: 20_000) { dunst.count("displayed") == 1 }, "\(w.daemon.log.suffix(600))")
        let offered = try dunst.choose("Allow once")
        #expect(offered.contains("Allow once") && offered.contains("Deny") && !offered.contains("Always"), "\(offered)")
        let got = allowed()
        #expect(got.status == 0 && !got.text.isEmpty, "\(got.errorText)")
        #expect(dunst.history().contains("Allow linkctl to use your account work?"), "\(dunst.history())")
        let refused = try token()
        #expect(eventually(timeoutMilliseconds: 20_000) { dunst.count("displayed") == 1 })
        try dunst.choose("Deny")
        let no = refused()
        #expect(no.status != 0 && no.text.isEmpty && no.errorText.contains("denied"), "\(no.status) \(no.errorText)")
        let listed = try w.desktop.linkctl("accounts", "--json")
        #expect(listed.status == 0, "the daemon is up")
    }
}
