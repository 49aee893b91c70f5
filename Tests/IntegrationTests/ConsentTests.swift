import Foundation
import Glibc
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

        // Always allow (the editor): a token now and, without a prompt, after.
        let fourth = try ask(editor: true)
        #expect(prompted())
        try dunst.choose("Always allow")
        let always = fourth()
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
