import Foundation
import Glibc
import LinkRouterCore
import SystemKit
import Testing

/// The KDE path (issue 20): `xdg-open` with `XDG_CURRENT_DESKTOP=KDE` runs
/// Debian's real `kde-open5`, whose KIO percent-decodes a link before it runs
/// the handler (`%20` → space, UTF-8 escapes → characters, unreserved escapes
/// → the character). linkctl puts back what cannot stand raw, so callbacks,
/// error callbacks and non-ASCII deep links work exactly as through GNOME.
@Suite(
    "KDE: kde-open5 and KIO's decoded links", .serialized,
    .enabled(if: KDE.unavailable == nil, "\(KDE.unavailable ?? "")"))
struct KDELaunchTests {
    /// A harness whose `xdg-open` takes KDE's path; KService's cache is rebuilt from the test's directories.
    func world(register: Bool = true, activation: Bool = false) throws -> Harness {
        let h = try Harness(register: register, activation: activation)
        KDE.use(h.desktop)
        return h
    }

    @Test(
        "what KIO 5.103 decodes, byte by byte (%00–%FF and UTF-8), and that linkctl's restoring gives back each link up to RFC 3986 equivalence"
    )
    func decodingTable() throws {
        let d = try TestDesktop()
        KDE.use(d)
        let probe = try TestApp.execApp(d, id: "org.example.Probe", schemes: ["com.example.probe"])
        try d.setDefault(probe.id, for: ["x-scheme-handler/com.example.probe"])
        try KDE.rebuildCache(d)
        let hex = Array("0123456789ABCDEF")
        func escape(_ b: Int) -> String { "%" + String(hex[b >> 4]) + String(hex[b & 15]) }
        var cases = (0..<256).map { b in (name: "b" + escape(b).dropFirst(), sent: escape(b)) }
        // Valid UTF-8 (decoded), invalid sequences and a noncharacter (kept), double encoding (decoded once at most),
        // stray %.
        for (i, sent) in [
            "%C3%A9", "%E2%82%AC", "%F0%9F%98%80", "%C2%A0", "%C2%85", "%c3%a9", "%C3%28", "%C0%AF", "%ED%A0%80",
            "%EF%BF%BF",
            "%2520", "%25C3%25A9", "%2f", "%7e%41",
        ].enumerated() {
            cases.append((name: "u\(i)", sent: sent))
        }
        let link = "com.example.probe:/p?" + cases.map { $0.name + "=" + $0.sent }.joined(separator: "&")
        let r = try d.xdgOpen(link)
        #expect(r.status == 0, "\(r.errorText)")
        let arrived = try #require(probe.waitForOpens(1).first)
        // What KIO handed the handler, value by value (no value decodes to '&' or '=': those stay encoded).
        let query = try #require(arrived.split(separator: "?", maxSplits: 1).last)
        var got: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            got[String(kv[0])] = kv.count > 1 ? String(kv[1]) : ""
        }
        #expect(got.count == cases.count, "every parameter came through: \(got.count) of \(cases.count)")
        // The measured table (../shared/reference/desktop-launch-paths.md), spot by spot.
        #expect(got["b20"] == " ")
        #expect(got["b7E"] == "~" && got["b41"] == "A" && got["b2D"] == "-")
        for kept in ["%25", "%2F", "%26", "%2B", "%3D", "%3F", "%23", "%00", "%0A", "%7F", "%80", "%FF"] {
            #expect(got["b" + kept.dropFirst()] == kept, "\(kept) stays encoded")
        }
        #expect(got["u0"] == "é" && got["u1"] == "€" && got["u2"] == "😀")
        #expect(
            got["u6"] == "%C3%28" && got["u8"] == "%ED%A0%80" && got["u9"] == "%EF%BF%BF",
            "invalid UTF-8 and the noncharacter stay encoded")
        #expect(got["u10"] == "%2520", "decoded at most once")
        #expect(got["u12"] == "%2F", "hex case is uppercased")
        // Restoring gives back every value as sent, up to what RFC 3986 §6.2.2 calls equivalent.
        for c in cases {
            let restored = LinkIntake.restoringEncoding(got[c.name] ?? "<missing>")
            #expect(
                restored == KDE.equivalent(c.sent),
                "\(c.sent) arrived as \(got[c.name] ?? "nothing"), restored as \(restored)")
        }
        // And the whole link, restored, is a valid URI again.
        #expect((try? URIReference.strict(LinkIntake.restoringEncoding(arrived), maxLength: 16_384)) != nil)
    }

    @Test("a login callback through KDE completes; its encoded bytes reach the owner as the provider sent them")
    func callback() throws {
        let h = try world()
        try KDE.rebuildCache(h.desktop)
        let (path, url) = try h.app.beginQuiet()
        let callback = "com.example.app:/callback?code=4%2F0AfKde-Code_1~x%20y&state=\(Harness.state(of: url))"
        let r = try h.desktop.xdgOpen(callback)
        #expect(r.status == 0 && r.text == "completed\n", "\(r.status) \(r.text) \(r.errorText)")
        let result = try h.app.wait(path)
        #expect(result["code"] == "4/0AfKde-Code_1~x y")
        #expect(result["callback_uri"] == callback, "the callback as the provider wrote it")
    }

    @Test("an error callback with error_description through KDE fails the session at once with the provider's words")
    func errorCallback() throws {
        let h = try world()
        try KDE.rebuildCache(h.desktop)
        let (path, url) = try h.app.beginQuiet()
        let r = try h.desktop.xdgOpen(
            "com.example.app:/callback?error=access_denied&error_description=The%20user%20denied%20access&state=\(Harness.state(of: url))"
        )
        #expect(r.status == 0 && r.text == "failed\n", "\(r.status) \(r.text) \(r.errorText)")
        let error = dbusError { _ = try h.app.wait(path, timeoutMilliseconds: 2000) }
        #expect(error?.name == errorPrefix + "AuthorizationFailed")
        #expect(error?.message.contains("access_denied (The user denied access)") == true, "\(error?.message ?? "")")
        #expect(h.daemonAnswers)
    }

    @Test(
        "the README's set-up through KDE: a non-ASCII deep link reaches the app, the callback its owner; claimed https to the app, the rest to the browser"
    )
    func deepLinksAndClaims() throws {
        let h = try world(register: false)
        let app = try TestApp.execApp(h.desktop, claims: ["https://example.com/app/"])
        #expect(try h.desktop.linkctl("register", "com.example.app").status == 0)
        #expect(try h.desktop.linkctl("install", "--claim-https").status == 0)
        try KDE.rebuildCache(h.desktop)
        let deep = "com.example.app:/search?q=caf%C3%A9%20au%20lait"
        #expect(try h.desktop.xdgOpen(deep).text == "launched\n")
        #expect(app.waitForOpens(1) == [deep])
        let (path, url) = try h.app.beginQuiet()
        #expect(
            try h.desktop.xdgOpen("com.example.app:/callback?code=c%C3%A9&state=\(Harness.state(of: url))").text
                == "completed\n")
        #expect(try h.app.wait(path)["code"] == "cé")
        let claimed = "https://example.com/app/caf%C3%A9?q=a%20b"
        #expect(try h.desktop.xdgOpen(claimed).text == "launched\n")
        #expect(app.waitForOpens(2).last == claimed)
        let web = "https://news.example/search?q=caf%C3%A9%20au%20lait&a=%2F%26%3D#top%20x"
        let r = try h.desktop.xdgOpen(web)
        #expect(r.status == 0 && r.text == "passthrough\n", "\(r.text) \(r.errorText)")
        #expect(h.desktop.waitForBrowser(Harness.browser) == [web], "the browser gets the link as it was written")
        #expect(app.opened().count == 2)
    }
}

extension KDELaunchTests {
    @Test(
        "focus on KDE's X11 path: linkrouter's entry asks for startup notification (StartupNotify=true), and the click's startup id KIO makes reaches the app of a deep link and, as Wait's activation_token, the owner of a login"
    )
    func startupNotification() throws {
        let h = try world(register: false)
        let display = try XvfbDisplay(desktop: h.desktop)
        h.desktop.extraEnvironment["DISPLAY"] = display.display
        h.desktop.extraEnvironment["QT_QPA_PLATFORM"] = "xcb"
        let app = try TestApp.execApp(h.desktop)
        #expect(try h.desktop.linkctl("register", "com.example.app").status == 0)
        try KDE.rebuildCache(h.desktop)
        let watch = try StartupWatch(desktop: h.desktop)
        let (path, url) = try h.app.beginQuiet()
        #expect(
            try h.desktop.xdgOpen("com.example.app:/callback?code=c&state=\(Harness.state(of: url))").text
                == "completed\n")
        let result = try h.app.wait(path)
        #expect(result["code"] == "c")
        // The token is the first answer's only (spent by the window that uses it); the result stays.
        let again = try h.app.wait(path)
        #expect(again["code"] == "c" && again["activation_token"] == nil, "\(again)")
        #expect(try h.desktop.xdgOpen("com.example.app:/items/1").text == "launched\n")
        app.waitForOpens(1)
        // KIO announces a startup for every launch of linkrouter's entry, with feedback (StartupNotify=true: GIO
        // hands a token only to such an entry, issue 45); whoever the link goes to takes the startup on.
        let ours = watch.waitForMessages(2).filter {
            $0.hasPrefix("new:") && $0.contains("linkrouter-com.example.app.desktop")
        }
        #expect(ours.count == 2, "\(watch.messages())")
        #expect(!ours.contains { $0.contains("SILENT=1") }, "\(ours)")
        // The deep link's startup id is the one KIO made for that click, handed on to the app; the callback's, to
        // the login's owner in Wait's answer.
        let id = try #require(app.lines().first?["desktop_startup_id"] as? String)
        #expect(ours.last?.contains("ID=\"\(id)\"") == true, "\(id) \(ours)")
        let handed = try #require(result["activation_token"])
        #expect(ours.first?.contains("ID=\"\(handed)\"") == true, "\(handed) \(ours)")
    }
}

/// The X11 startup-notification messages on a display (Fixtures/startup_watch.py).
final class StartupWatch {
    let pid: Int32
    let out: String

    init(desktop: TestDesktop) throws {
        out = desktop.root + "/startup-\(Clock.monotonicNanoseconds()).jsonl"
        let ready = out + ".ready"
        pid = try Subprocess.spawn(
            ["/usr/bin/python3", Paths.fixtures + "/startup_watch.py", "--out", out], environment: desktop.environment,
            stdout: .file(ready), stderr: .file(ready + ".err"))
        guard eventually(timeoutMilliseconds: 10_000, { ((try? FileSystem.readText(ready)) ?? "").contains("ready") })
        else {
            Subprocess.stop(pid, name: "startup_watch.py")
            throw SystemError(
                "startup_watch did not start: \((try? FileSystem.readText(ready + ".err")) ?? "")", code: ETIMEDOUT)
        }
    }

    func messages() -> [String] {
        ((try? FileSystem.readText(out)) ?? "").split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["message"] as? String
        }
    }

    /// Waits until `count` `new:` messages have arrived.
    func waitForMessages(_ count: Int) -> [String] {
        eventually(timeoutMilliseconds: 10_000) { messages().filter { $0.hasPrefix("new:") }.count >= count }
        return messages()
    }

    deinit {
        Subprocess.stop(pid, name: "startup_watch.py")
    }
}

/// Running Debian's KDE launcher hermetically: KDE's variables, Qt without a
/// display, and KService's cache built from the test's own directories.
enum KDE {
    static let unavailable: String? = {
        for p in ["/usr/bin/kde-open5", "/usr/bin/kbuildsycoca5", "/etc/xdg/menus/kf5-applications.menu"]
        where FileSystem.status(p) == nil {
            return "\(p) is missing (Debian: kde-cli-tools); scripts/setup --test installs it"
        }
        return nil
    }()

    static func use(_ d: TestDesktop) {
        // KService lists applications through the XDG menu KDE ships (libkf5service-data); without it
        // in a config directory it finds none. The menu names no application or default: those all
        // still come from the test's own directories.
        try? FileSystem.makeDirectories(d.systemConfig + "/menus", permissions: 0o700)
        try? FileSystem.symlink(
            "/etc/xdg/menus/kf5-applications.menu", at: d.systemConfig + "/menus/kf5-applications.menu")
        d.extraEnvironment["XDG_CURRENT_DESKTOP"] = "KDE"
        d.extraEnvironment["KDE_SESSION_VERSION"] = "5"
        d.extraEnvironment["QT_QPA_PLATFORM"] = "offscreen"
        d.extraEnvironment["XDG_CACHE_HOME"] = d.root + "/cache"
    }

    /// KIO finds handlers through KService's cache, not the files: rebuild it after they change.
    static func rebuildCache(_ d: TestDesktop) throws {
        let r = try d.run(["kbuildsycoca5", "--noincremental"], timeoutMilliseconds: 60_000)
        guard r.status == 0 else { throw SystemError("kbuildsycoca5 failed: \(r.errorText)", code: 1) }
    }

    /// A query value in the form RFC 3986 §6.2.2 calls equivalent: unreserved
    /// characters decoded, every other escape's hex uppercase.
    static func equivalent(_ sent: String) -> String {
        func unreserved(_ b: UInt8) -> Bool {
            (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39) || b == 0x2D || b == 0x2E
                || b == 0x5F || b == 0x7E
        }
        var out = ""
        let u = Array(sent.utf8)
        var i = 0
        while i < u.count {
            if u[i] == 0x25, i + 2 < u.count,
                let v = UInt8(String(decoding: u[(i + 1)...(i + 2)], as: UTF8.self), radix: 16)
            {
                if unreserved(v) {
                    out.append(Character(Unicode.Scalar(v)))
                } else {
                    out += "%" + String(decoding: u[(i + 1)...(i + 2)], as: UTF8.self).uppercased()
                }
                i += 3
            } else {
                out.append(Character(Unicode.Scalar(u[i])))
                i += 1
            }
        }
        return out
    }
}
