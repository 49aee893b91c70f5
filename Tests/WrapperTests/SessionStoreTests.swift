import Glibc
import LinkRouterCore
import Store
import SystemKit
import Testing

@Suite("Session store (SQLite)")
struct SessionStoreTests {
    static func session(_ n: Int, status: SessionStatus = .pending) throws -> Session {
        var r = SessionRequest()
        r.authorizationEndpoint = "https://as.example/auth"
        r.clientID = "c"
        r.redirectURI = n % 2 == 0 ? "com.example.app:/cb" : "http://127.0.0.1/cb"
        r.appCallbackURI = n % 2 == 0 ? "https://example.com/app" : nil
        r.issuer = "https://as.example"
        r.resumeHosts = ["api.vipps.no", "apitest.vipps.no"]
        var plan = try SessionPlan.make(r, owner: ":1.\(n)", limits: Limits())
        plan.bind(port: 40000 + n)
        let secrets = SessionSecrets(id: SessionID("s\(n)")!, state: "state\(n)_" + String(repeating: "x", count: 30), nonce: "n\(n)",
                                     codeVerifier: "v\(n)" + String(repeating: "y", count: 42), codeChallenge: "c\(n)")
        var s = plan.makeSession(secrets: secrets, claimTokenDigest: [UInt8](repeating: UInt8(n), count: 32), now: 1_800_000_000)
        s.browser = "firefox.desktop"
        s.status = status
        return s
    }

    @Test("sessions round-trip (one by one and in a batch), files are private, WAL is on")
    func roundTrip() throws {
        let dir = TemporaryDirectory()
        let store = try SessionStore(directory: dir.path + "/lr")
        var sessions = try (1...5).map { try Self.session($0) }
        // Rows are read in id order, and a row's strings are reused from the row
        // before when equal: a value, then none, then another must each come back.
        sessions[2].browser = nil
        sessions[3].browser = "chromium.desktop"
        sessions[3].owner = sessions[2].owner
        sessions[1].status = .completed
        sessions[1].result = AuthorizationResult(code: "C", state: sessions[1].state, redirectURI: sessions[1].redirect.string,
                                                 callbackURI: "x", issuer: "https://as.example", codeVerifier: sessions[1].codeVerifier, nonce: "n2")
        sessions[1].finishedAt = 1_800_000_010
        sessions[2].failure = SessionFailure(code: .authorizationFailed, providerError: "access_denied", providerDescription: "no", message: "m")
        for s in sessions { try store.insert(s) }
        try store.update(sessions[1])
        try store.delete(sessions[4].id)
        sessions[0].status = .cancelled
        sessions[0].finishedAt = 1_800_000_020
        sessions[3].status = .expired
        // A finished session keeps no verifier (the daemon wipes it; the store does not bring one back).
        sessions[0].codeVerifier = nil
        sessions[3].codeVerifier = nil
        try store.write([.update(sessions[0]), .update(sessions[3])])
        let reopened = try SessionStore(directory: dir.path + "/lr")
        let (loaded, problems) = try reopened.loadAll()
        #expect(problems.isEmpty)
        #expect(Dictionary(uniqueKeysWithValues: loaded.map { ($0.id, $0) }) == Dictionary(uniqueKeysWithValues: sessions.prefix(4).map { ($0.id, $0) }))
        #expect(FileSystem.status(dir.path + "/lr")?.permissions == 0o700)
        #expect(FileSystem.status(store.path)?.permissions == 0o600)
        #expect(FileSystem.status(store.path + "-wal")?.permissions == 0o600)
    }

    @Test("an exchange plan round-trips; tokens are never written; a schema 1 store gains the column and keeps its sessions")
    func exchangeAndMigration() throws {
        let dir = TemporaryDirectory()
        var r = SessionRequest()
        r.issuer = "https://as.example"
        r.clientID = "c"
        r.redirectURI = "com.example.app:/cb"
        r.scope = "openid"
        r.exchange = true
        r.discovered = ProviderMetadata(issuer: "https://as.example", authorizationEndpoint: "https://as.example/auth",
                                        tokenEndpoint: "https://as.example/token", jwksURI: "https://as.example/jwks", issParameterSupported: false)
        let plan = try SessionPlan.make(r, owner: ":1.7", limits: Limits())
        var exchanging = plan.makeSession(secrets: SessionSecrets(id: SessionID("x1")!, state: "state_" + String(repeating: "x", count: 30), nonce: "n",
                                                                  codeVerifier: String(repeating: "v", count: 43), codeChallenge: "c"),
                                          claimTokenDigest: nil, now: 1_800_000_000)
        exchanging.status = .exchanging
        exchanging.result = AuthorizationResult(code: "C", state: exchanging.state, redirectURI: exchanging.redirect.string, callbackURI: "cb",
                                                issuer: nil, codeVerifier: exchanging.codeVerifier, nonce: "n")
        var store = try SessionStore(directory: dir.path + "/lr")
        try store.insert(exchanging)
        var reloaded = try SessionStore(directory: dir.path + "/lr").loadAll().sessions
        #expect(reloaded == [exchanging], "the exchange plan and the code come back, so a restart finishes the exchange")

        var done = exchanging
        done.status = .completed
        done.finishedAt = 1_800_000_001
        done.codeVerifier = nil
        done.result?.code = ""
        done.result?.codeVerifier = nil
        done.result?.tokens = TokenSet(accessToken: "secret-access", tokenType: "Bearer", expiresAt: 1, refreshToken: "secret-refresh", idToken: "a.b.c", scope: nil)
        try store.update(done)
        store.checkpoint()
        reloaded = try SessionStore(directory: dir.path + "/lr").loadAll().sessions
        #expect(reloaded.first?.status == .completed && reloaded.first?.result?.tokens == nil)
        let bytes = try FileSystem.read(store.path, maxBytes: 1 << 24)
        #expect(!String(decoding: bytes, as: UTF8.self).contains("secret-"), "no token in the database file")

        // Back to schema 1 (as an older daemon left it), then opened by this one.
        let sql = try Subprocess.run(["sqlite3", store.path, "ALTER TABLE sessions DROP COLUMN exchange; PRAGMA user_version = 1;"])
        #expect(sql.status == 0, "\(sql.errorText)")
        store = try SessionStore(directory: dir.path + "/lr")
        let migrated = try store.loadAll().sessions
        #expect(migrated.count == 1 && migrated.first?.exchange == nil && migrated.first?.id == exchanging.id)
        #expect(try Subprocess.run(["sqlite3", store.path, "PRAGMA user_version;"]).text == "2\n")
    }

    @Test("a corrupt file is moved aside and a fresh store starts (P2)")
    func corrupt() throws {
        let dir = TemporaryDirectory()
        try FileSystem.ensurePrivateDirectory(dir.path + "/lr")
        let path = dir.path + "/lr/" + SessionStore.fileName
        try FileSystem.writeAtomically(path, text: String(repeating: "not a database ", count: 400), permissions: 0o600)
        let store = try SessionStore(directory: dir.path + "/lr")
        guard case .quarantined(let moved, _) = store.opening else { Issue.record("not quarantined: \(store.opening)"); return }
        #expect(FileSystem.exists(moved))
        #expect(try store.loadAll().sessions.isEmpty)
        try store.insert(try Self.session(2))
    }

    @Test("a symlinked or shared store is refused and moved aside (P3)")
    func untrusted() throws {
        let dir = TemporaryDirectory()
        try FileSystem.ensurePrivateDirectory(dir.path + "/lr")
        let path = dir.path + "/lr/" + SessionStore.fileName
        try FileSystem.writeAtomically(dir.path + "/elsewhere", text: "x", permissions: 0o600)
        try FileSystem.symlink(dir.path + "/elsewhere", at: path)
        let a = try SessionStore(directory: dir.path + "/lr")
        guard case .quarantined = a.opening else { Issue.record("symlink followed"); return }
        #expect(try FileSystem.readText(dir.path + "/elsewhere") == "x")
        chmod(path, 0o644)
        let b = try SessionStore(directory: dir.path + "/lr")
        guard case .quarantined = b.opening else { Issue.record("0644 store accepted"); return }
        chmod(dir.path + "/lr", 0o755)
        #expect(throws: StoreError.self) { try SessionStore(directory: dir.path + "/lr") }
    }
}
