import Glibc
import LinkRouterCore
import Store
import StoreTesting
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
        r.login.resumeHosts = ["api.vipps.no", "apitest.vipps.no"]
        var plan = try SessionPlan.make(
            r, owner: Caller(name: ":1.\(n)", app: n == 3 ? .flatpak("org.example.App") : .unknown), limits: Limits())
        plan.bind(port: 40000 + n)
        let secrets = SessionSecrets(
            id: SessionID("s\(n)")!, state: "state\(n)_" + String(repeating: "x", count: 30), nonce: "n\(n)",
            codeVerifier: "v\(n)" + String(repeating: "y", count: 42), codeChallenge: "c\(n)")
        var s = plan.makeSession(
            secrets: secrets, claimTokenDigest: [UInt8](repeating: UInt8(n), count: 32), browser: "firefox.desktop",
            now: 1_800_000_000)
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
        sessions[2].codeLogin.browser = nil
        sessions[3].codeLogin.browser = "chromium.desktop"
        sessions[3].owner = sessions[2].owner
        sessions[1].status = .completed
        sessions[1].result = AuthorizationResult(
            code: "C", state: sessions[1].codeLogin.state, redirectURI: sessions[1].codeLogin.redirect.string,
            callbackURI: "x", issuer: "https://as.example", codeVerifier: sessions[1].codeLogin.codeVerifier,
            nonce: "n2")
        sessions[1].finishedAt = 1_800_000_010
        sessions[2].failure = SessionFailure(
            code: .authorizationFailed, providerError: "access_denied", providerDescription: "no", message: "m")
        for s in sessions { try store.insert(s) }
        try store.update(sessions[1])
        try store.delete(sessions[4].id)
        sessions[0].status = .cancelled
        sessions[0].finishedAt = 1_800_000_020
        sessions[3].status = .expired
        // A finished session keeps no verifier (the daemon wipes it; the store does not bring one back).
        sessions[0].codeLogin.codeVerifier = nil
        sessions[3].codeLogin.codeVerifier = nil
        try store.write([.update(sessions[0]), .update(sessions[3])])
        let reopened = try SessionStore(directory: dir.path + "/lr")
        let (loaded, problems) = try reopened.loadAll()
        #expect(problems.isEmpty)
        #expect(
            Dictionary(uniqueKeysWithValues: loaded.map { ($0.id, $0) })
                == Dictionary(uniqueKeysWithValues: sessions.prefix(4).map { ($0.id, $0) }))
        #expect(FileSystem.status(dir.path + "/lr")?.permissions == 0o700)
        #expect(FileSystem.status(store.path)?.permissions == 0o600)
        #expect(FileSystem.status(store.path + "-wal")?.permissions == 0o600)
    }

    @Test("an exchange plan round-trips; tokens are never written")
    func exchange() throws {
        let dir = TemporaryDirectory()
        var r = SessionRequest()
        r.issuer = "https://as.example"
        r.clientID = "c"
        r.redirectURI = "com.example.app:/cb"
        r.scope = "openid"
        r.exchange = true
        let metadata = ProviderMetadata(
            issuer: "https://as.example", authorizationEndpoint: "https://as.example/auth",
            tokenEndpoint: "https://as.example/token", jwksURI: "https://as.example/jwks", issParameterSupported: false)
        let plan = try SessionPlan.make(r, metadata: metadata, owner: Caller(name: ":1.7"), limits: Limits())
        var exchanging = plan.makeSession(
            secrets: SessionSecrets(
                id: SessionID("x1")!, state: "state_" + String(repeating: "x", count: 30), nonce: "n",
                codeVerifier: String(repeating: "v", count: 43), codeChallenge: "c"),
            claimTokenDigest: nil, browser: nil, now: 1_800_000_000)
        exchanging.status = .exchanging
        exchanging.result = AuthorizationResult(
            code: "C", state: exchanging.codeLogin.state, redirectURI: exchanging.codeLogin.redirect.string,
            callbackURI: "cb",
            issuer: nil, codeVerifier: exchanging.codeLogin.codeVerifier, nonce: "n")
        let store = try SessionStore(directory: dir.path + "/lr")
        try store.insert(exchanging)
        var reloaded = try SessionStore(directory: dir.path + "/lr").loadAll().sessions
        #expect(
            reloaded == [exchanging], "the exchange plan and the code come back, so a restart finishes the exchange")

        var done = exchanging
        done.status = .completed
        done.finishedAt = 1_800_000_001
        done.codeLogin.codeVerifier = nil
        done.result?.code = ""
        done.result?.codeVerifier = nil
        done.result?.tokens = TokenSet(
            accessToken: "secret-access", tokenType: "Bearer", expiresAt: 1, refreshToken: "secret-refresh",
            idToken: "a.b.c", scope: nil)
        try store.update(done)
        store.checkpoint()
        reloaded = try SessionStore(directory: dir.path + "/lr").loadAll().sessions
        #expect(reloaded.first?.status == .completed && reloaded.first?.result?.tokens == nil)
        let bytes = try FileSystem.read(store.path, maxBytes: 1 << 24)
        #expect(!String(decoding: bytes, as: UTF8.self).contains("secret-"), "no token in the database file")

    }

    /// A store as an older daemon left it: schema 1 (a column a field), or 2 (plus `exchange`), with three rows.
    static func oldStore(_ path: String, schema: Int, exchange: String?) throws {
        let value = schema == 1 ? "" : ", " + (exchange.map { "'\($0)'" } ?? "NULL")
        try OldStore.write(
            path, schema: schema,
            statements: """
                INSERT INTO meta VALUES ('bus_id', 'b0');
                INSERT INTO sessions VALUES ('m1', 'builder', ':1.5', NULL, 'state_old_\(String(repeating: "o", count: 30))', 'n1',
                  '\(String(repeating: "v", count: 43))', 'com.example.app:/cb', 'https://example.com/app', 'https://as.example',
                  'api.vipps.no apitest.vipps.no', '/p/', 'client', 'firefox.desktop', 'https://as.example', 1, 'resumed', NULL, NULL, NULL,
                  NULL, NULL, NULL, NULL, 1, 0, 1800000000, 1800000600, NULL\(value));
                INSERT INTO sessions VALUES ('m2', 'adopted', NULL, x'0909', 'state_two_\(String(repeating: "t", count: 30))', NULL, NULL,
                  'http://127.0.0.1:40001/cb', NULL, 'https://as.example', '', NULL, 'browser', NULL, NULL, 0, 'failed', NULL, NULL, NULL,
                  'AuthorizationFailed', 'access_denied', 'no', 'the provider refused', 0, 1, 1800000000, 1800000600, 1800000005\(value));
                INSERT INTO sessions VALUES ('m3', 'spaceship', NULL, NULL, 'state_bad_\(String(repeating: "b", count: 30))', NULL, NULL,
                  'http://127.0.0.1:40001/cb', NULL, 'https://as.example', '', NULL, 'browser', NULL, NULL, 0, 'pending', NULL, NULL, NULL,
                  NULL, NULL, NULL, NULL, 0, 0, 1800000000, 1800000600, NULL\(value));
                """)
    }

    @Test(
        "schema 1 and 2 stores move to schema 3 (a header and one flow value) in one transaction, keeping every session as it was"
    )
    func migration() throws {
        for schema in [1, 2] {
            let dir = TemporaryDirectory()
            let path = dir.path + "/lr/" + SessionStore.fileName
            let exchange = TokenExchange(
                clientID: "c", tokenEndpoint: "https://as.example/token", jwksURI: "https://as.example/jwks",
                expectsIDToken: true)
            // Schema 2's `exchange` column: one line a field.
            let column = [exchange.clientID, exchange.tokenEndpoint, exchange.jwksURI, "openid"].joined(separator: "\n")
            try Self.oldStore(path, schema: schema, exchange: column)
            let store = try SessionStore(directory: dir.path + "/lr")
            guard case .existing = store.opening else {
                Issue.record("the old store was not opened: \(store.opening)")
                return
            }
            let (loaded, problems) = try store.loadAll()
            #expect(problems.isEmpty)
            #expect(
                store.migrationProblems.count == 1 && store.migrationProblems[0].contains("m3"),
                "a row the move cannot read is named, not lost silently")
            #expect(loaded.count == 2)
            let byID = Dictionary(uniqueKeysWithValues: loaded.map { ($0.id, $0) })
            let a = try #require(byID[SessionID("m1")!])
            #expect(
                a.ownerName == ":1.5" && a.owner?.app == .unknown && a.status == .resumed && a.claimTokenDigest == nil)
            #expect(
                a.codeLogin.source == .builder && a.codeLogin.state == "state_old_" + String(repeating: "o", count: 30)
                    && a.codeLogin.nonce == "n1")
            #expect(
                a.codeLogin.codeVerifier == String(repeating: "v", count: 43), "a pending session keeps its verifier")
            #expect(
                a.codeLogin.redirect.string == "com.example.app:/cb"
                    && a.codeLogin.appCallback?.string == "https://example.com/app")
            #expect(
                a.codeLogin.options.resumeHosts == ["api.vipps.no", "apitest.vipps.no"]
                    && a.codeLogin.options.resumePathPrefix == "/p/" && a.codeLogin.options.resumeMode == .client)
            #expect(
                a.codeLogin.browser == "firefox.desktop" && a.codeLogin.issuer == "https://as.example"
                    && a.codeLogin.options.requireIssuer
                    && a.codeLogin.resumeOpened)
            #expect(a.codeLogin.exchange == (schema == 1 ? nil : exchange))
            #expect(a.createdAt == 1_800_000_000 && a.expiresAt == 1_800_000_600 && a.finishedAt == nil)
            let b = try #require(byID[SessionID("m2")!])
            #expect(
                b.owner == nil && b.claimTokenDigest == [9, 9] && b.status == .failed && b.released
                    && b.finishedAt == 1_800_000_005)
            #expect(
                b.codeLogin.source == .adopted && b.codeLogin.codeVerifier == nil
                    && b.codeLogin.redirect.style == .loopback
                    && b.codeLogin.options.resumeHosts.isEmpty)
            #expect(
                b.failure
                    == SessionFailure(
                        code: .authorizationFailed, providerError: "access_denied", providerDescription: "no",
                        message: "the provider refused"))
            #expect(try store.meta("bus_id") == "b0", "the rest of the store is kept")
            #expect(try Subprocess.run(["sqlite3", store.path, "PRAGMA user_version;"]).text == "3\n")
            #expect(
                try Subprocess.run([
                    "sqlite3", store.path, "SELECT count(*) FROM sqlite_master WHERE name = 'sessions_schema2';",
                ]).text == "0\n")
            // What was migrated is written back and read again unchanged.
            try store.update(a)
            #expect(try SessionStore(directory: dir.path + "/lr").loadAll().sessions.count == 2)
        }
    }

    @Test("a corrupt file is moved aside and a fresh store starts (P2)")
    func corrupt() throws {
        let dir = TemporaryDirectory()
        try FileSystem.ensurePrivateDirectory(dir.path + "/lr")
        let path = dir.path + "/lr/" + SessionStore.fileName
        try FileSystem.writeAtomically(path, text: String(repeating: "not a database ", count: 400), permissions: 0o600)
        let store = try SessionStore(directory: dir.path + "/lr")
        guard case .quarantined(let moved, _) = store.opening else {
            Issue.record("not quarantined: \(store.opening)")
            return
        }
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
        guard case .quarantined = a.opening else {
            Issue.record("symlink followed")
            return
        }
        #expect(try FileSystem.readText(dir.path + "/elsewhere") == "x")
        chmod(path, 0o644)
        let b = try SessionStore(directory: dir.path + "/lr")
        guard case .quarantined = b.opening else {
            Issue.record("0644 store accepted")
            return
        }
        chmod(dir.path + "/lr", 0o755)
        #expect(throws: StoreError.self) { try SessionStore(directory: dir.path + "/lr") }
    }
}

extension Session {
    /// The code login a fixture made (every fixture here is one); a test of another kind fails here.
    var codeLogin: CodeLogin {
        get {
            guard case .code(let c) = login else { fatalError("\(logTag) is not a code login") }
            return c
        }
        set { login = .code(newValue) }
    }
}
