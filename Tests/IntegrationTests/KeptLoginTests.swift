import Foundation
import SystemKit
import Testing

/// The four ordinary ways a login used to be lost (issue 47), each where the
/// fault is real: a Glewlwyd whose refresh tokens are one-use with reuse
/// detection, the real gnome-keyring replaced, locked or frozen, a provider's
/// answer held on its way, SIGTERM as systemd sends it. Each ends with the
/// proof that nothing was lost: a new daemon refreshes with what the keyring
/// holds, and the provider takes it.
@Suite("Kept logins: no refresh token spent whose successor cannot be kept")
struct KeptLoginTests {
    typealias R = RotationTests

    @Test(
        "the keyring replaced behind the daemon's back (killed, started again locked: no signal says so): a refresh it was asked for is not sent; the live token comes with why; unlocked, the refresh happens and is kept"
    )
    func keyringReplaced() throws {
        let w = try R.signedIn()
        let before = try R.secret(w, "work")
        try w.keyring.replace(unlocked: false)
        let posts = R.tokenPosts(w)
        let short = try w.desktop.linkctl("token", "work", "--min-valid", "3600")
        #expect(
            short.status == 0 && short.errorText.contains("keyring is locked"), "\(short.status) \(short.errorText)")
        #expect(!short.text.isEmpty)
        #expect(R.tokenPosts(w) == posts, "a refresh token was spent with nowhere to keep its successor")
        try w.keyring.unlockDefault()
        let refreshed = try w.desktop.linkctl("token", "work", "--min-valid", "3600")
        #expect(refreshed.status == 0 && !refreshed.errorText.contains("keyring"), "\(refreshed.errorText)")
        #expect(R.tokenPosts(w) == posts + 1)
        #expect(eventually(timeoutMilliseconds: 10_000) { (try? R.secret(w, "work")).map { $0 != before } ?? false })
        try R.nextDaemonRefreshes(w)
    }

    @Test(
        "a locked keyring the daemon was told of: a live token short of min_valid is handed out with why; once none is live, KeyringLocked and nothing spent; unlocked, the refresh happens, is written, and the next daemon refreshes with it"
    )
    func lockedKeyring() throws {
        let w = try R.signedIn(accessTokenSeconds: 20, ["--min-valid", "5", "--refresh", "on-demand"])
        let first = try w.desktop.linkctl("token", "work", "--json")
        let fields = (try? JSONSerialization.jsonObject(with: Data(first.text.utf8)) as? [String: Any]) ?? [:]
        let expiry = try #require(fields["expires_at"] as? Int)
        let before = try R.secret(w, "work")
        try w.keyring.lockDefault()
        #expect(
            eventually(timeoutMilliseconds: 10_000) {
                ((try? w.accounts())?.first?["keyring"] as? String)?.hasSuffix(", locked") == true
            }, "\((try? w.accounts()) ?? [])")
        let posts = R.tokenPosts(w)
        let short = try w.desktop.linkctl("token", "work", "--min-valid", "3600")
        #expect(short.status == 0 && short.errorText.contains("keyring is locked"), "\(short.errorText)")
        #expect(R.tokenPosts(w) == posts)
        // Nothing live is left: the caller is told to unlock, and the refresh token is still unspent.
        #expect(eventually(timeoutMilliseconds: 40_000) { Clock.unixSeconds() > Int64(expiry) })
        let none = try w.desktop.linkctl("token", "work")
        #expect(none.status == 5 && none.errorText.contains("KeyringLocked"), "\(none.status) \(none.errorText)")
        #expect(R.tokenPosts(w) == posts)
        try w.keyring.unlockDefault()
        let after = try w.desktop.linkctl("token", "work")
        #expect(after.status == 0, "\(after.status) \(after.errorText)")
        #expect(R.tokenPosts(w) == posts + 1)
        #expect(eventually(timeoutMilliseconds: 10_000) { (try? R.secret(w, "work")).map { $0 != before } ?? false })
        try R.nextDaemonRefreshes(w)
    }

    @Test(
        "the keyring locked while the provider's answer is on its way (the write fails after the spend): the caller gets its token with why, `linkctl accounts` says not saved, the set is written once unlocked, and the next daemon refreshes with it"
    )
    func lockedMidWrite() throws {
        let w = try R.signedIn()
        let before = try R.secret(w, "work")
        let (call, proxy) = try R.heldRefresh(w)
        // Locked while the answer is held (its flight is under way, so the daemon reads nothing meanwhile).
        try w.keyring.lockDefault()
        try proxy.set("honest")
        try proxy.release()
        #expect(Subprocess.wait(call.pid, timeoutMilliseconds: 30_000) == 0)
        let warned = (try? FileSystem.readText(call.err)) ?? ""
        #expect(warned.contains("not in the keyring"), "\(warned)")
        let table = try w.desktop.linkctl("accounts")
        #expect(table.status == 0 && table.text.contains("not saved"), "\(table.text)")
        try w.keyring.unlockDefault()
        #expect(eventually(timeoutMilliseconds: 10_000) { (try? R.secret(w, "work")).map { $0 != before } ?? false })
        #expect(
            eventually(timeoutMilliseconds: 10_000) {
                (try? w.desktop.linkctl("accounts").text.contains("not saved")) == false
            })
        try R.nextDaemonRefreshes(w)
    }

    @Test(
        "the unlock sequence: a 503 (backoff), the token refused by a server (RejectToken), the keyring locked, a restart: KeyringLocked; unlocked, the next call refreshes at the provider and never hands out the refused token"
    )
    func unlockSequence() throws {
        let w = try R.signedIn()
        let proxy = try #require(w.proxy)
        let rejected = try w.desktop.linkctl("token", "work").text.trimmingCharacters(in: .newlines)
        let kept = try R.secret(w, "work")
        try proxy.set("token-unavailable")
        let down = try w.desktop.linkctl("token", "work", "--min-valid", "3600")
        #expect(down.status == 0 && down.text.trimmingCharacters(in: .newlines) == rejected, "\(down.errorText)")
        try proxy.set("honest")
        // A server refused the token: git's helper says so (erase), the daemon marks it rejected.
        let erase = try w.desktop.run(
            [
                "sh", "-c",
                "printf 'protocol=https\\nhost=git.example.com\\npassword=%s\\n\\n' \"$0\" | "
                    + "\"$1\" credential git --account work erase", rejected, Paths.linkctl,
            ])
        #expect(erase.status == 0, "\(erase.errorText)")
        // The refusal is written to the keyring (the set, its access token's expiry 0), so no later daemon hands the
        // token out again.
        #expect(eventually(timeoutMilliseconds: 10_000) { (try? R.secret(w, "work")).map { $0 != kept } ?? false })
        try w.keyring.lockDefault()
        #expect(
            eventually(timeoutMilliseconds: 10_000) {
                ((try? w.accounts())?.first?["keyring"] as? String)?.hasSuffix(", locked") == true
            })
        try w.restart()
        let locked = try w.desktop.linkctl("token", "work")
        #expect(
            locked.status == 5 && locked.errorText.contains("KeyringLocked"), "\(locked.status) \(locked.errorText)")
        let posts = R.tokenPosts(w)
        try w.keyring.unlockDefault()
        let after = try w.desktop.linkctl("token", "work")
        #expect(after.status == 0, "\(after.status) \(after.errorText)")
        let token = after.text.trimmingCharacters(in: .newlines)
        #expect(!token.isEmpty && token != rejected, "the refused token was handed out again")
        #expect(R.tokenPosts(w) == posts + 1, "no refresh at the provider")
        #expect(w.daemon.isRunning)
    }

    @Test(
        "a provider that answers a refresh after 20 s (held at a proxy, past the old 15 s limit; the provider spent the refresh token when it took the request): the caller gets its still-live token after 10 s, saying the provider is slow; the daemon waits for the answer, the keyring gets the rotated set, and the next daemon refreshes with it"
    )
    func slowAnswer() throws {
        let w = try R.signedIn()
        let before = try R.secret(w, "work")
        let (call, proxy) = try R.heldRefresh(w)
        // The caller need not wait for all of it: its token is still live, and it gets it, with why.
        #expect(
            eventually(timeoutMilliseconds: 20_000) {
                ((try? FileSystem.readText(call.err)) ?? "").contains("has not answered its refresh in 10 s")
            }, "\((try? FileSystem.readText(call.err)) ?? "")")
        // The fault is the time itself: the answer is released 20 s after the provider gave it.
        let heldAt = Clock.monotonicMilliseconds()
        #expect(eventually(timeoutMilliseconds: 30_000) { Clock.monotonicMilliseconds() - heldAt >= 10_000 })
        try proxy.set("honest")
        try proxy.release()
        // The caller has its token already; the answer, released, lands and is written.
        #expect(eventually(timeoutMilliseconds: 20_000) { (try? R.secret(w, "work")).map { $0 != before } ?? false })
        try R.nothingLost(w, call, before: before)
    }

    @Test(
        "a keyring that hangs at a stop (SIGSTOP) with a rotated set on its way to it, then SIGTERM: the write gives up in 10 s, inside the drain; the set is set aside in the runtime directory (0600) and the daemon stops cleanly; the next daemon writes it to the keyring, deletes the copy, and refreshes with it"
    )
    func hungKeyringAtStop() throws {
        let w = try R.signedIn()
        let before = try R.secret(w, "work")
        let (call, proxy) = try R.heldRefresh(w)
        kill(w.keyring.pid, SIGSTOP)
        try proxy.set("honest")
        try proxy.release()
        #expect(eventually(timeoutMilliseconds: 20_000) { proxy.delivered() == 1 })
        kill(w.daemon.pid, SIGTERM)
        #expect(w.daemon.waitForExit(timeoutMilliseconds: 60_000) == 0, "\(w.daemon.log)")
        #expect(Subprocess.wait(call.pid, timeoutMilliseconds: 10_000) == 0, "the caller lost its token")
        let aside = w.desktop.runtimeDir + "/linkrouter/unsaved"
        let files = FileSystem.list(aside)
        #expect(files.count == 1, "nothing set aside: \(w.daemon.log)")
        if let file = files.first {
            #expect(FileSystem.status(aside + "/" + file)?.permissions == 0o600)
        }
        kill(w.keyring.pid, SIGCONT)
        #expect(try R.secret(w, "work") == before, "the keyring never took the set (it was frozen)")
        try w.restart()
        // The next daemon writes the set it finds to the keyring, and deletes the copy.
        #expect(eventually(timeoutMilliseconds: 20_000) { (try? R.secret(w, "work")).map { $0 != before } ?? false })
        #expect(eventually(timeoutMilliseconds: 10_000) { FileSystem.list(aside).isEmpty })
        try R.refreshTaken(w)
    }

    @Test(
        "SIGTERM with a rotated set the locked keyring did not take: the stop waits for the person to unlock it (stop_held_back), the unlock writes the set, and only then does the daemon stop; nothing is set aside, and the next daemon refreshes with it"
    )
    func lockedAtStop() throws {
        let w = try R.signedIn()
        let before = try R.secret(w, "work")
        let (call, proxy) = try R.heldRefresh(w)
        try w.keyring.lockDefault()
        try proxy.set("honest")
        try proxy.release()
        #expect(Subprocess.wait(call.pid, timeoutMilliseconds: 30_000) == 0)
        #expect(eventually(timeoutMilliseconds: 10_000) { (try? w.accounts())?.first?["unsaved"] != nil })
        kill(w.daemon.pid, SIGTERM)
        let probe = try BusClient(w.bus.address)
        #expect(eventually(timeoutMilliseconds: 10_000) { ((try? probe.counters()["stop_held_back"]) ?? 0) >= 1 })
        #expect(w.daemon.isRunning, "stopped without waiting for the unlock")
        try w.keyring.unlockDefault()
        #expect(w.daemon.waitForExit(timeoutMilliseconds: 30_000) == 0, "\(w.daemon.log)")
        #expect(try R.secret(w, "work") != before, "the unlock did not write the set")
        #expect(FileSystem.list(w.desktop.runtimeDir + "/linkrouter/unsaved").isEmpty)
        try R.nextDaemonRefreshes(w)
    }
}
