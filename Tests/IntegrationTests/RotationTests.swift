import Foundation
import SystemKit
import Testing

/// Accounts at a provider whose refresh tokens rotate one-use with reuse
/// detection (Glewlwyd, `refresh-token-one-use: always`): a spent refresh
/// token sent again is refused with an empty 400, and the provider revokes
/// the whole chain (issue 34).
@Suite("Rotation: one-use refresh tokens at a real provider")
struct RotationTests {
    /// The account's secret as the keyring holds it (`secret-tool`, on the test's own bus).
    static func secret(_ w: AccountTests.World, _ name: String) throws -> String {
        let r = try w.desktop.run([
            "secret-tool", "lookup", "xdg:schema", "org.linkrouter.Tokens", "account", name, "issuer",
            w.provider.issuer,
        ])
        guard r.status == 0, !r.text.isEmpty else {
            throw SystemError("no secret for \(name): \(r.errorText)", code: ENOENT)
        }
        return r.text
    }

    /// Puts `secret` back as the account's item (an older daemon's view of the account).
    static func store(_ w: AccountTests.World, _ name: String, _ secret: String) throws {
        try FileSystem.writeAtomically(w.desktop.root + "/old-secret", text: secret, permissions: 0o600)
        let r = try w.desktop.run([
            "sh", "-c",
            "secret-tool store --label='linkrouter: \(name)' xdg:schema org.linkrouter.Tokens account \(name) issuer '\(w.provider.issuer)' < '\(w.desktop.root)/old-secret'",
        ])
        guard r.status == 0 else { throw SystemError("secret-tool store: \(r.errorText)", code: EIO) }
    }

    static func tokenPosts(_ w: AccountTests.World) -> Int {
        (w.proxy?.requests() ?? []).filter {
            $0["method"] as? String == "POST" && ($0["path"] as? String)?.hasSuffix("/token") == true
        }.count
    }

    @Test(
        "a spent refresh token sent again (the set an older daemon lost) is refused with an empty 400: the sign-in ends at once and says so, the keyring forgets it, the token endpoint is not asked again"
    )
    func spentTokenEndsSignIn() throws {
        let w = try Self.signedIn()
        let first = try Self.secret(w, "work")

        // One refresh: the provider spends the first refresh token and answers a new one, which the keyring now holds.
        let posts = Self.tokenPosts(w)
        let refreshed = try w.desktop.linkctl("token", "work", "--min-valid", "3600")
        #expect(refreshed.status == 0, "\(refreshed.errorText)")
        #expect(Self.tokenPosts(w) == posts + 1)
        #expect(eventually(timeoutMilliseconds: 10_000) { (try? Self.secret(w, "work")) != first })

        // The keyring goes back to the first set (as if the new one had been lost), and a new daemon reads it.
        _ = w.daemon.stop()
        try Self.store(w, "work", first)
        try w.restart()
        let spent = Self.tokenPosts(w)
        let dead = try w.desktop.linkctl("token", "work", "--min-valid", "3600")
        #expect(dead.status == 4, "NotSignedIn, not RefreshFailed: \(dead.status) \(dead.errorText)")
        #expect(
            dead.errorText.contains("refused the refresh token (HTTP 400)")
                && dead.errorText.contains("linkctl login work"),
            "\(dead.errorText)")
        #expect(Self.tokenPosts(w) == spent + 1, "the spent token was sent once")
        #expect(eventually(timeoutMilliseconds: 10_000) { (try? w.keyring.items(account: "work")) ?? (1, 0) == (0, 0) })

        // Signed out, not backing off: the next call says so at once and asks the provider nothing.
        let again = try w.desktop.linkctl("token", "work")
        #expect(again.status == 4 && again.errorText.contains("linkctl login work"), "\(again.errorText)")
        #expect(Self.tokenPosts(w) == spent + 1)
        #expect(w.daemon.isRunning)
    }

    /// A refresh under way when SIGTERM comes (`linkctl token NAME --min-valid 3600`, its output and errors kept):
    /// the process, and where its output goes.
    /// A signed-in `work` at a one-use provider, its set in the keyring.
    static func signedIn(accessTokenSeconds: Int = 600, _ extra: [String] = []) throws -> AccountTests.World {
        let w = try AccountTests.World(accessTokenSeconds: accessTokenSeconds, counted: true, oneUseRefresh: true)
        #expect(try w.add("work", extra).status == 0)
        #expect(try w.login("work").status == 0)
        #expect(eventually(timeoutMilliseconds: 10_000) { (try? w.keyring.items(account: "work")) ?? (0, 0) == (1, 0) })
        return w
    }

    /// A refresh of `work` under way whose answer the provider has given (spending the old refresh token) and the
    /// proxy holds on its way: its caller, and the proxy (`release()` lets the answer go).
    static func heldRefresh(_ w: AccountTests.World) throws -> (
        call: (pid: Int32, out: String, err: String), proxy: TamperProxy
    ) {
        let proxy = try #require(w.proxy)
        let held = proxy.heldCount()
        try proxy.hold()
        let call = try refreshing(w)
        #expect(eventually(timeoutMilliseconds: 20_000) { proxy.heldCount() > held }, "no answer held")
        return (call, proxy)
    }

    /// A new daemon refreshes with what the keyring holds, and the provider takes it (200): nothing was lost.
    static func nextDaemonRefreshes(_ w: AccountTests.World) throws {
        try w.restart()
        try refreshTaken(w)
    }

    /// A refresh with what the daemon holds now reaches the provider once, and the provider takes it (200).
    static func refreshTaken(_ w: AccountTests.World) throws {
        let posts = tokenPosts(w)
        let next = try w.desktop.linkctl("token", "work", "--min-valid", "3600")
        #expect(next.status == 0, "the next daemon could not refresh: \(next.status) \(next.errorText)")
        let answers = (w.proxy?.requests() ?? []).filter { ($0["path"] as? String)?.hasSuffix("/token") == true }
        #expect(tokenPosts(w) == posts + 1 && answers.last?["status"] as? Int == 200, "\(answers.last ?? [:])")
        #expect(w.daemon.isRunning)
    }

    static func refreshing(_ w: AccountTests.World) throws -> (pid: Int32, out: String, err: String) {
        let out = w.desktop.root + "/refresh.out"
        let err = w.desktop.root + "/refresh.err"
        let pid = try Subprocess.spawn(
            [Paths.linkctl, "token", "work", "--min-valid", "3600"], environment: w.desktop.environment,
            stdout: .file(out), stderr: .file(err))
        return (pid, out, err)
    }

    /// After the drained stop: the refresh's caller got its token, the keyring holds the new set, and a new daemon
    /// refreshes with it (the provider takes it: no spent token is sent again, no new sign-in).
    static func nothingLost(
        _ w: AccountTests.World, _ call: (pid: Int32, out: String, err: String), before: String
    ) throws {
        #expect(
            Subprocess.wait(call.pid, timeoutMilliseconds: 30_000) == 0,
            "the caller lost its token: \((try? FileSystem.readText(call.err)) ?? "")")
        #expect(try Self.secret(w, "work") != before, "the keyring still has the spent set")
        try nextDaemonRefreshes(w)
    }

    @Test(
        "SIGTERM while the provider's refresh answer is on its way (held by a proxy): the daemon waits for it, writes the rotated set, answers its caller, then stops; the next daemon refreshes with the new token"
    )
    func stopWaitsForTheAnswer() throws {
        let w = try Self.signedIn()
        let before = try Self.secret(w, "work")
        // The provider has answered (and spent the old refresh token); the answer is held on its way.
        let (call, proxy) = try Self.heldRefresh(w)
        kill(w.daemon.pid, SIGTERM)
        // The daemon took the signal and waits for the answer (it would have stopped at once before).
        let probe = try BusClient(w.bus.address)
        #expect(eventually(timeoutMilliseconds: 10_000) { ((try? probe.counters()["stop_held_back"]) ?? 0) >= 1 })
        #expect(w.daemon.isRunning)
        try proxy.set("honest")
        try proxy.release()
        #expect(w.daemon.waitForExit(timeoutMilliseconds: 30_000) == 0, "\(w.daemon.log)")
        try Self.nothingLost(w, call, before: before)
    }

    @Test(
        "SIGTERM after the provider answered while the keyring is frozen (SIGSTOP): the daemon waits for the keyring to take the rotated set, then stops; nothing is lost"
    )
    func stopWaitsForTheKeyring() throws {
        let w = try Self.signedIn()
        let before = try Self.secret(w, "work")
        // The keyring answers the check before the refresh, and is frozen while the provider's answer is held: the
        // answer reaches the daemon with nowhere to be written.
        let (call, proxy) = try Self.heldRefresh(w)
        kill(w.keyring.pid, SIGSTOP)
        try proxy.set("honest")
        try proxy.release()
        #expect(eventually(timeoutMilliseconds: 20_000) { proxy.delivered() == 1 })
        kill(w.daemon.pid, SIGTERM)
        // The daemon took the signal and waits for the keyring (it would have stopped at once before).
        let probe = try BusClient(w.bus.address)
        #expect(eventually(timeoutMilliseconds: 10_000) { ((try? probe.counters()["stop_held_back"]) ?? 0) >= 1 })
        #expect(w.daemon.isRunning)
        kill(w.keyring.pid, SIGCONT)
        #expect(w.daemon.waitForExit(timeoutMilliseconds: 30_000) == 0, "\(w.daemon.log)")
        try Self.nothingLost(w, call, before: before)
    }

    @Test(
        "refreshed ahead of need: with no caller running the daemon refreshes before min_valid runs out (seen at the provider), and a call after the old expiry is answered from memory even with the provider stalled"
    )
    func refreshedAhead() throws {
        // The daemon's timer runs on the boot-time clock, which a test cannot move (the core's rule is driven by its
        // own clock in BackgroundRefreshTests): the tokens live 20 s, so the refresh comes 10 to 15 s after the sign-in
        // (the floor, and min_valid with the account's spread) and the old expiry 5 s later at most.
        let w = try AccountTests.World(accessTokenSeconds: 20, counted: true, oneUseRefresh: true)
        #expect(try w.add("work", ["--min-valid", "5"]).status == 0)
        #expect(try w.login("work").status == 0)
        let first = try w.desktop.linkctl("token", "work", "--json")
        let fields = (try? JSONSerialization.jsonObject(with: Data(first.text.utf8)) as? [String: Any]) ?? [:]
        let oldToken = try #require(fields["token"] as? String)
        let oldExpiry = try #require(fields["expires_at"] as? Int)
        let proxy = try #require(w.proxy)
        func refreshes() -> Int {
            proxy.requests().filter { $0["grant_type"] as? String == "refresh_token" && $0["status"] as? Int == 200 }
                .count
        }
        #expect(refreshes() == 0)
        // Nobody asks: the daemon refreshes before the token runs out, and writes the new set.
        let before = try Self.secret(w, "work")
        #expect(eventually(timeoutMilliseconds: 30_000) { refreshes() >= 1 }, "no refresh ahead of need")
        #expect(eventually(timeoutMilliseconds: 10_000) { (try? Self.secret(w, "work")) != before })
        // After the old expiry, with the provider stalled: a call that needed the provider would fail; it is answered
        // from memory at once with the new token.
        #expect(eventually(timeoutMilliseconds: 30_000) { Clock.unixSeconds() > Int64(oldExpiry) })
        try proxy.set("stall-token")
        let after = try w.desktop.linkctl("token", "work", timeoutMilliseconds: 10_000)
        #expect(after.status == 0, "\(after.status) \(after.errorText)")
        let token = after.text.trimmingCharacters(in: .newlines)
        #expect(!token.isEmpty && token != oldToken)
        #expect(w.daemon.isRunning)
    }

    @Test(
        "narrower tokens at a Glewlwyd with one-use refresh tokens: --resource reaches the token endpoint (seen at the proxy), each resource its own token, asked again from memory; --scope openid is asked of the token endpoint and its token carries exactly openid; one refresh chain throughout, across a restart"
    )
    func narrowerTokens() throws {
        let w = try AccountTests.World(counted: true, oneUseRefresh: true)
        #expect(try w.add("work", ["--scope", "openid profile"]).status == 0)
        #expect(try w.login("work").status == 0)
        let proxy = try #require(w.proxy)
        func tokenPosts() -> [[String: Any]] {
            proxy.requests().filter {
                $0["method"] as? String == "POST" && ($0["path"] as? String)?.hasSuffix("/token") == true
            }
        }
        func json(_ args: String...) throws -> [String: Any] {
            let r = try w.desktop.linkctl(["token", "work", "--json"] + args)
            #expect(r.status == 0, "\(args) \(r.errorText)")
            return (try? JSONSerialization.jsonObject(with: Data(r.text.utf8)) as? [String: Any]) ?? [:]
        }
        let own = try json()
        // Glewlwyd grants this client openid alone, not the declared "openid profile": the accounts say so.
        let listed = try w.accounts()
        #expect(listed.first?["granted_scope"] as? String == "openid", "\(listed)")
        let table = try w.desktop.linkctl("accounts")
        #expect(table.errorText.contains("work's provider granted the scope \"openid\""), "\(table.errorText)")
        let api = try json("--resource", "https://api.example.com/")
        let posted = try #require(tokenPosts().last)
        #expect(
            posted["grant_type"] as? String == "refresh_token"
                && posted["resource"] as? [String] == ["https://api.example.com/"], "\(posted)")
        #expect(
            api["resource"] as? [String] == ["https://api.example.com/"]
                && api["token"] as? String != own["token"] as? String)
        let other = try json("--resource", "https://other.example.com/")
        #expect(
            other["token"] as? String != api["token"] as? String
                && tokenPosts().last?["resource"] as? [String] == ["https://other.example.com/"])
        let count = tokenPosts().count
        #expect(try json("--resource", "https://api.example.com/")["token"] as? String == api["token"] as? String)
        #expect(tokenPosts().count == count, "asked again: from memory")
        // A scope asked for: the refresh carries it, and Glewlwyd's access token (a JWT) carries exactly it. (Its
        // sign-in here grants openid alone, so this shows what the request carries; the narrowing itself is proven at
        // django-oauth-toolkit, SecondProviderTests.narrowerScope.)
        func scopeClaim(_ token: Any?) -> String? {
            guard let token = token as? String, token.split(separator: ".").count == 3 else { return nil }
            var part = String(token.split(separator: ".")[1]).replacingOccurrences(of: "-", with: "+")
                .replacingOccurrences(of: "_", with: "/")
            while part.count % 4 != 0 { part += "=" }
            guard let data = Data(base64Encoded: part),
                let claims = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            else { return nil }
            return claims["scope"] as? String
        }
        let narrow = try json("--scope", "openid")
        #expect(tokenPosts().last?["scope"] as? String == "openid")
        #expect(narrow["scope"] as? String == "openid" && scopeClaim(narrow["token"]) == "openid", "\(narrow)")
        #expect(narrow["token"] as? String != own["token"] as? String)
        // Every narrow refresh spent the one-use refresh token and left a new one: the account's own refresh, and the
        // next daemon's, use the last (a spent one would be an empty 400 and the end of the sign-in).
        #expect(try w.desktop.linkctl("token", "work", "--min-valid", "3600").status == 0)
        try w.restart()
        let after = try w.desktop.linkctl("token", "work", "--min-valid", "3600")
        #expect(after.status == 0, "\(after.errorText)")
        #expect(tokenPosts().allSatisfy { $0["status"] as? Int == 200 }, "\(tokenPosts().map { $0["status"] ?? "?" })")
    }
}
