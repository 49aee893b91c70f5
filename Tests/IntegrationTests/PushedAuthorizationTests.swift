import DBusKit
import Foundation
import Glibc
import SystemKit
import Testing

/// Pushed authorization requests (RFC 9126) against a real provider:
/// Glewlwyd with PAR required (a plain authorize URL is refused there), so a
/// login that works pushed its request; and what a bad push answer does.
@Suite("Pushed authorization requests at Glewlwyd")
struct PARTests {
    @Test(
        "PAR required at the provider: an account's login pushes, the browser's URL has client_id and request_uri only, and the tokens are kept"
    )
    func required() throws {
        let w = try AccountTests.World(counted: true, par: "required")
        let proxy = try #require(w.proxy)
        #expect(try w.add("work").status == 0)
        let login = try w.login("work")
        #expect(login.status == 0, "\(login.errorText)")
        let pushes = proxy.requests().filter {
            $0["method"] as? String == "POST" && ($0["path"] as? String)?.hasSuffix("/par") == true
        }
        #expect(pushes.count == 1 && pushes.first?["status"] as? Int == 201, "\(pushes)")
        let url = try #require(
            login.errorText.split(separator: "\n").first { $0.hasPrefix("  http") }.map {
                $0.trimmingCharacters(in: .whitespaces)
            })
        let names = (URLComponents(string: url)?.queryItems ?? []).map(\.name).sorted()
        #expect(names == ["client_id", "request_uri"], "\(url)")
        #expect(try w.desktop.linkctl("token", "work").status == 0)
    }

    @Test(
        "a push answered without request_uri: the login fails saying so, no session is kept, the daemon stays up; par=off where the provider requires it is refused at once"
    )
    func refused() throws {
        let w = try AccountTests.World(counted: true, par: "required")
        let proxy = try #require(w.proxy)
        #expect(try w.add("work").status == 0)
        try proxy.set("par-no-request-uri")
        let r = try w.desktop.linkctl(["login", "work", "--no-browser", "--timeout", "20000"])
        #expect(
            r.status != 0 && r.errorText.contains("was answered with no usable request_uri"),
            "\(r.status) \(r.errorText)")
        #expect(r.errorText.contains("AuthorizationFailed"), "\(r.errorText)")
        let sessions = try w.desktop.linkctl("sessions", "--json")
        let listed = try #require(
            try JSONSerialization.jsonObject(with: Data(sessions.text.utf8)) as? [[String: Any]], "\(sessions.text)")
        #expect(sessions.status == 0 && listed.isEmpty, "no session was made: \(sessions.text)")
        try proxy.set("honest")
        let off = try w.desktop.linkctl([
            "login", "--issuer", w.provider.issuer, "--client-id", w.provider.clientID, "--redirect-uri",
            AccountTests.redirect, "--par", "off",
            "--no-browser", "--timeout", "20000",
        ])
        #expect(
            off.status != 0 && off.errorText.contains("requires pushed authorization requests"),
            "\(off.status) \(off.errorText)")
        #expect(w.daemon.isRunning)
    }

    @Test(
        "an account's par: require at a provider without PAR fails its login at once, and the file keeps it; a login may not set it again"
    )
    func accountOption() throws {
        let w = try AccountTests.World()
        #expect(try w.add("strict", ["--par", "require"]).status == 0)
        let file = try FileSystem.readText(w.desktop.configHome + "/linkrouter/accounts/strict.conf")
        #expect(file.contains("par=require"), "\(file)")
        let r = try w.desktop.linkctl(["login", "strict", "--no-browser", "--timeout", "20000"])
        #expect(
            r.status != 0 && r.errorText.contains("lists no usable pushed_authorization_request_endpoint"),
            "\(r.status) \(r.errorText)")
        let again = try w.desktop.linkctl(["login", "strict", "--par", "off", "--no-browser", "--timeout", "20000"])
        #expect(
            again.status != 0 && again.errorText.contains("par is the account's"), "\(again.status) \(again.errorText)")
        let bad = try w.add("odd", ["--par", "sometimes"])
        #expect(bad.status != 0 && bad.errorText.contains("not one of auto, require, off"), "\(bad.errorText)")
        #expect(w.daemon.isRunning)
    }
}
