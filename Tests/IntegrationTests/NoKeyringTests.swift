import Foundation
import SystemKit
import Testing

/// A sign-in whose tokens would have nowhere to go (issue 34): with no
/// Secret Service on the session bus, `linkctl login NAME` for an account
/// that keeps its tokens in the keyring is refused before a browser opens,
/// and says what to do; an account declared `--store memory` signs in.
@Suite("No keyring: a sign-in refused before it begins")
struct NoKeyringTests {
    @Test(
        "no Secret Service: linkctl login fails with NoKeyring (exit 5) before any URL is shown or session begun, saying how to go on; --store memory signs in, saying the tokens last the daemon's life"
    )
    func refusedBeforeTheBrowser() throws {
        let desktop = try TestDesktop()
        let bus = try PrivateBus(desktop: desktop)
        let provider = try Glewlwyd(desktop: desktop, redirectURIs: [AccountTests.redirect])
        let daemon = try DaemonProcess(desktop: desktop)
        func add(_ name: String, _ extra: [String] = []) throws -> Subprocess.Outcome {
            try desktop.linkctl(
                [
                    "account", "add", name, "--issuer", provider.issuer, "--client-id", provider.clientID,
                    "--redirect-uri", AccountTests.redirect,
                ] + extra)
        }
        #expect(try add("work").status == 0)
        let login = try desktop.linkctl("login", "work", "--no-browser", "--timeout", "20000")
        #expect(login.status == 5, "\(login.status) \(login.errorText)")
        #expect(
            login.errorText.contains("NoKeyring") && login.errorText.contains("--store memory")
                && !login.errorText.contains("http"), "\(login.errorText)")
        // One message: what is missing and the two ways out, each said once.
        #expect(
            login.errorText.components(separatedBy: "store memory").count == 2
                && !login.errorText.contains("default collection"), "\(login.errorText)")
        let client = try BusClient(bus.address)
        #expect(try client.allSessions().isEmpty, "a session was begun")
        // doctor says what the accounts lack, each with its fix: a keyring, and a notification server.
        let doctor = try desktop.linkctl("doctor")
        #expect(doctor.status == 1, "\(doctor.text)")
        #expect(
            doctor.text.contains("FAIL  keyring: work keep tokens in the keyring: no Secret Service")
                && doctor.text.contains("gnome-keyring-daemon --unlock --components=secrets"), "\(doctor.text)")
        #expect(doctor.text.contains("FAIL  notification server: no org.freedesktop.Notifications"), "\(doctor.text)")
        // Kept in memory, by the person's choice: it signs in, and both the declaration and the sign-in say plainly
        // that the tokens last the daemon's life.
        let added = try add("scratch", ["--store", "memory"])
        #expect(added.status == 0 && added.errorText.contains("memory only"), "\(added.errorText)")
        let kept = try desktop.signIn("scratch", at: provider)
        #expect(kept.status == 0, "\(kept.errorText)")
        #expect(
            kept.errorText.contains("scratch's tokens are kept in linkrouterd's memory only")
                && kept.errorText.contains("until the daemon stops"), "\(kept.errorText)")

        #expect(try desktop.linkctl("token", "scratch").status == 0)
        #expect(daemon.isRunning)
    }
}
