import Foundation
import Glibc
import LinkRouterFiles
import SystemKit
import Testing

/// `linkctl claim` (issue 20): https claims for apps that ship none, kept by
/// linkrouter (the install record), not in a copy of the app's desktop entry;
/// ranked with the apps' own claims by the longest prefix; refused with a
/// reason for what cannot be an app; gone with `uninstall`.
@Suite("Claims for apps that ship none")
struct ClaimTests {
    func world() throws -> Harness {
        let h = try Harness(register: false)
        #expect(try h.desktop.linkctl("install", "--claim-https").status == 0)
        return h
    }

    @Test(
        "claim add gives an app a prefix: its links reach it, the rest the browser; list and explain show it; remove takes it back"
    )
    func addListRemove() throws {
        let h = try world()
        let app = try TestApp.execApp(h.desktop, id: "org.example.Chat", schemes: [])
        let entryBefore = try FileSystem.readText(h.desktop.applications + "/" + app.id)
        let add = try h.desktop.linkctl("claim", "add", "https://chat.example/", "--app", app.id, "--json")
        #expect(
            add.status == 0 && add.text.jsonField("prefix") == "https://chat.example/", "\(add.text) \(add.errorText)")
        #expect(
            try FileSystem.readText(h.desktop.applications + "/" + app.id) == entryBefore,
            "the app's entry is not copied or changed")
        #expect(try h.desktop.xdgOpen("https://chat.example/joinchat/abc").text == "launched\n")
        #expect(app.waitForOpens(1) == ["https://chat.example/joinchat/abc"])
        #expect(try h.desktop.xdgOpen("https://other.example/x").text == "passthrough\n")
        #expect(h.desktop.waitForBrowser(Harness.browser) == ["https://other.example/x"])
        let list = try h.desktop.linkctl("claim", "list", "--json")
        #expect(
            list.text.contains(
                "\"prefix\":\"https://chat.example/\",\"app\":\"\(app.id)\",\"from\":\"linkctl claim add\",\"in_effect\":true"
            ), "\(list.text)")
        let explained = try h.desktop.linkctl("explain", "https://chat.example/joinchat/abc", "--json")
        #expect(
            explained.text.jsonField("reason")?.contains("https://chat.example/, is \(app.id)'s") == true,
            "\(explained.text)")
        #expect(try h.desktop.linkctl("doctor").text.contains("claimed by \(app.id) (your claim, linkctl claim add)"))
        #expect(try h.desktop.linkctl("claim", "remove", "https://chat.example/").status == 0)
        #expect(try h.desktop.xdgOpen("https://chat.example/joinchat/def").text == "passthrough\n")
        #expect(app.opened().count == 1)
    }

    @Test(
        "ranking: a longer claim of yours beats an app's own shorter one; on an equal prefix yours wins and doctor shows the conflict"
    )
    func ranking() throws {
        let h = try world()
        let site = try TestApp.execApp(h.desktop, id: "org.example.Site", schemes: [], claims: ["https://example.com/"])
        let tool = try TestApp.execApp(h.desktop, id: "org.example.Tool", schemes: [])
        #expect(try h.desktop.linkctl("claim", "add", "https://example.com/tool/", "--app", tool.id).status == 0)
        #expect(try h.desktop.xdgOpen("https://example.com/tool/1").text == "launched\n")
        #expect(try h.desktop.xdgOpen("https://example.com/page").text == "launched\n")
        #expect(tool.waitForOpens(1) == ["https://example.com/tool/1"])
        #expect(site.waitForOpens(1) == ["https://example.com/page"])
        #expect(try h.desktop.linkctl("claim", "add", "https://example.com/", "--app", tool.id).status == 0)
        #expect(try h.desktop.xdgOpen("https://example.com/page2").text == "launched\n")
        #expect(tool.waitForOpens(2).last == "https://example.com/page2")
        let doctor = try h.desktop.linkctl("doctor")
        #expect(
            doctor.text.contains("claimed by \(tool.id) and \(site.id); \(tool.id) gets its links"), "\(doctor.text)")
        #expect(site.opened().count == 1)
    }

    @Test(
        "refusals: each a clear error, the record unchanged, nothing delivered, the daemon up",
        arguments: [
            (["claim", "add", "https://x.example/"], 64, "claim add needs --app DESKTOP-ID"),
            (["claim", "add", "https://x.example/", "--app", "nope.desktop"], 1, "no desktop entry nope.desktop"),
            (["claim", "add", "https://x.example/", "--app", "Chat"], 64, "--app takes a desktop file id"),
            (["claim", "add", "https://x.example/", "--app", "linkrouter-https.desktop"], 1, "linkrouter's own entry"),
            (["claim", "add", "https://x.example/", "--app", "org.example.Forwarder.desktop"], 1, "hands links on"),
            (["claim", "add", "http://x.example/", "--app", "org.example.Chat.desktop"], 1, "is not https"),
            (
                ["claim", "add", "https://x.example/app", "--app", "org.example.Chat.desktop"], 1,
                "does not end at a path segment boundary"
            ),
            (
                ["claim", "add", "https://x.example/?q=1", "--app", "org.example.Chat.desktop"], 1,
                "userinfo, a query or a fragment"
            ),
            (
                ["claim", "add", "https://left.example/", "--app", "org.example.Chat.desktop"], 1,
                "left.example is left to the browser"
            ),
            (
                ["claim", "add", "https://taken.example/", "--app", "org.example.Chat.desktop"], 1,
                "you already gave https://taken.example/ to org.example.Other.desktop"
            ),
            (["claim", "remove", "https://never.example/"], 1, "no claim https://never.example/ was added"),
            (["claim", "remove", "https://own.example/"], 1, "claimed by org.example.Own.desktop's own desktop entry"),
            (["claim", "frobnicate"], 64, "use claim add PREFIX --app DESKTOP-ID, claim list, or claim remove PREFIX"),
            (["claim", "list", "--app", "x.desktop"], 64, "claim list takes no --app"),
        ])
    func refusals(_ args: [String], _ status: Int32, _ message: String) throws {
        let h = try Harness(register: false)
        #expect(try h.desktop.linkctl("install", "--claim-https", "--leave-to-browser", "left.example").status == 0)
        let chat = try TestApp.execApp(h.desktop, id: "org.example.Chat", schemes: [])
        _ = try TestApp.execApp(h.desktop, id: "org.example.Other", schemes: [])
        _ = try TestApp.execApp(h.desktop, id: "org.example.Own", schemes: [], claims: ["https://own.example/"])
        _ = try TestApp.execApp(h.desktop, id: "org.example.Forwarder", schemes: [], exec: "xdg-open %u")
        #expect(
            try h.desktop.linkctl("claim", "add", "https://taken.example/", "--app", "org.example.Other.desktop").status
                == 0)
        let record = h.desktop.stateHome + "/linkrouter/install.conf"
        let before = try FileSystem.readText(record)
        let r = try h.desktop.linkctl(args)
        #expect(r.status == status, "\(r.text) \(r.errorText)")
        #expect(r.errorText.contains(message), "\(r.errorText)")
        #expect(try FileSystem.readText(record) == before, "the record is unchanged")
        #expect(try h.desktop.xdgOpen("https://x.example/a").text == "passthrough\n")
        #expect(chat.opened().isEmpty)
        #expect(h.daemonAnswers)
    }

    @Test("uninstall removes your claims with everything else")
    func uninstall() throws {
        let h = try world()
        let app = try TestApp.execApp(h.desktop, id: "org.example.Chat", schemes: [])
        #expect(try h.desktop.linkctl("claim", "add", "https://chat.example/", "--app", app.id).status == 0)
        #expect(try h.desktop.linkctl("uninstall").status == 0)
        #expect(try h.desktop.linkctl("install", "--claim-https").status == 0)
        #expect(try h.desktop.linkctl("claim", "list", "--json").text == "[]\n")
        #expect(try h.desktop.xdgOpen("https://chat.example/x").text == "passthrough\n")
        #expect(app.opened().isEmpty)
    }

    @Test(
        "a real app that ships no claim: Telegram Desktop from Debian gets https://t.me/ links",
        .enabled(
            if: Telegram.entry != nil,
            "telegram-desktop is not installed (Debian: telegram-desktop); scripts/setup --test installs it"))
    func telegram() throws {
        let h = try world()
        let display = try XvfbDisplay(desktop: h.desktop)
        h.desktop.extraEnvironment["DISPLAY"] = display.display
        // The package's own entry, in the test's system directory: the app as Debian ships it, unchanged.
        let id = FileSystem.baseName(Telegram.entry!)
        try FileSystem.writeAtomically(
            h.desktop.systemData + "/applications/" + id, text: try FileSystem.readText(Telegram.entry!),
            permissions: 0o644)
        let add = try h.desktop.linkctl("claim", "add", "https://t.me/", "--app", id)
        #expect(add.status == 0, "\(add.errorText)")
        let link = "https://t.me/linkrouter_test_\(getpid())"
        #expect(try h.desktop.xdgOpen(link).text == "launched\n")
        let pid = eventuallyValue(timeoutMilliseconds: 15_000) { Telegram.process(withArgument: link) }
        #expect(pid != nil, "Telegram Desktop started with the link")
        if let pid { kill(pid, SIGTERM) }
        #expect(try h.app.counter("browsers_started") == 0)
    }
}

/// Debian's Telegram Desktop, for the claim test.
enum Telegram {
    static let entry: String? = [
        "/usr/share/applications/org.telegram.desktop.desktop", "/usr/share/applications/telegramdesktop.desktop",
    ]
    .first { FileSystem.status($0) != nil && FileSystem.isExecutable("/usr/bin/telegram-desktop") }

    /// The process whose argv holds `argument`.
    static func process(withArgument argument: String) -> Int32? {
        for name in FileSystem.list("/proc") {
            guard let pid = Int32(name), let bytes = try? FileSystem.read("/proc/\(name)/cmdline") else { continue }
            let args = bytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            if args.contains(argument), args.first.map({ FileSystem.baseName($0).hasPrefix("telegram") }) == true {
                return pid
            }
        }
        return nil
    }
}
