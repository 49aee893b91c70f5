public import LinkRouterCore
import SystemKit
import Glibc

/// Sessions on disk, in SQLite (WAL), so no acknowledged login is lost to a
/// crash or `kill -9` (issue: durable sessions).
///
/// Every `BeginSession` and every state change is committed before the
/// daemon answers. `synchronous=NORMAL` in WAL mode makes a commit survive
/// the process dying at any instant; it may not survive a power cut, which
/// is moot here: the store lives in `$XDG_RUNTIME_DIR`, a tmpfs that a power
/// cut (or logout) clears anyway.
public final class SessionStore {
    public let path: String
    private let db: SQLiteDatabase
    private let upsert: SQLiteStatement
    private let remove: SQLiteStatement
    private var dirtySinceCheckpoint = false

    public static let fileName = "sessions.sqlite3"

    /// What opening found, for the daemon's log.
    public enum Opening: Sendable {
        case fresh
        case existing
        /// The old file was unusable and moved to `quarantined`; this store is fresh.
        case quarantined(String, reason: String)
    }

    public private(set) var opening: Opening = .fresh

    /// Opens the store in `directory` (made 0700 if missing). An existing file
    /// that is not a private regular file, or not a database, or damaged, is
    /// moved aside and a fresh store is started (threat model P2, P3).
    public init(directory: String) throws(StoreError) {
        do { try FileSystem.ensurePrivateDirectory(directory) } catch {
            throw StoreError(code: 0, message: "store directory unusable: \(error)")
        }
        let path = directory + "/" + Self.fileName
        self.path = path
        var quarantine: (String, String)?
        if let st = FileSystem.status(path) {
            if st.kind != .regular {
                quarantine = (path, "it is not a regular file (a symlink?)")
            } else if st.owner != getuid() || st.permissions & 0o077 != 0 {
                quarantine = (path, "it is not private to this user (mode \(String(st.permissions, radix: 8)))")
            }
        }
        if let (file, reason) = quarantine {
            opening = .quarantined(try Self.moveAside(file), reason: reason)
        }
        let existed = FileSystem.exists(path)
        // Created 0600 by us, so SQLite's -wal and -shm, which copy the
        // database file's mode, are private too whatever the umask.
        try Self.createPrivately(path)
        var db: SQLiteDatabase
        do {
            db = try Self.openChecked(path)
        } catch where error.isCorruption {
            opening = .quarantined(try Self.moveAside(path), reason: error.message)
            try Self.createPrivately(path)
            db = try Self.openChecked(path)
        }
        if case .fresh = opening, existed { opening = .existing }
        _ = chmod(path, 0o600)
        self.db = db
        upsert = try db.prepare(Self.upsertSQL)
        remove = try db.prepare("DELETE FROM sessions WHERE id = ?1")
    }

    private static func createPrivately(_ path: String) throws(StoreError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if fd >= 0 {
            close(fd)
        } else if errno != EEXIST {
            throw StoreError(code: 0, message: "cannot create \(path): \(SystemError("open"))")
        }
    }

    /// Opens, sets the pragmas, checks integrity and migrates.
    private static func openChecked(_ path: String) throws(StoreError) -> SQLiteDatabase {
        let db = try SQLiteDatabase(path: path)
        try db.execute("PRAGMA secure_delete = ON")
        guard try db.text("PRAGMA journal_mode = WAL")?.lowercased() == "wal" else {
            throw StoreError(code: 0, message: "\(path): cannot switch to WAL mode")
        }
        try db.execute("PRAGMA synchronous = NORMAL")
        let check = try db.text("PRAGMA quick_check") ?? ""
        guard check == "ok" else { throw StoreError(code: 11, message: "\(path) failed its integrity check: \(check)") }
        let version = try db.integer("PRAGMA user_version")
        guard version <= Schema.version else {
            throw StoreError(code: 0, message: "\(path) has schema version \(version), newer than this linkrouterd (\(Schema.version)); stop the newer daemon or remove the file")
        }
        if version < Schema.version {
            try db.transaction { () throws(StoreError) in
                for v in Int(version)..<Schema.migrations.count { try db.execute(Schema.migrations[v]) }
                try db.execute("PRAGMA user_version = \(Schema.version)")
            }
        }
        return db
    }

    /// Renames `path` (and its -wal/-shm) to `path.corrupt-<time>`, returning the new name.
    private static func moveAside(_ path: String) throws(StoreError) -> String {
        let target = path + ".corrupt-" + String(Clock.unixSeconds())
        for suffix in ["", "-wal", "-shm"] where FileSystem.status(path + suffix) != nil {
            do { try FileSystem.rename(path + suffix, to: target + suffix) } catch {
                throw StoreError(code: 0, message: "cannot move the unusable store aside: \(error)")
            }
        }
        return target
    }

    static let columns = """
        id, mode, owner, claim_digest, state, nonce, code_verifier, code_challenge, redirect_uri, app_callback_uri,
        authorize_url, authorization_origin, resume_hosts, resume_path_prefix, resume_mode, browser, issuer, require_iss,
        status, result_code, result_callback_uri, result_iss, failure_code, failure_error, failure_description,
        failure_message, resume_opened, delivered, created_at, expires_at, finished_at
        """

    static let upsertSQL = "INSERT OR REPLACE INTO sessions (\(columns)) VALUES (" +
        (1...31).map { "?\($0)" }.joined(separator: ", ") + ")"

    /// Writes the session (insert or replace) in one transaction.
    public func save(_ s: Session) throws(StoreError) {
        try upsert.run([
            .text(s.id.rawValue), .text(s.mode.rawValue), .optional(s.owner),
            s.claimTokenDigest.map { .blob($0) } ?? .null,
            .text(s.state), .optional(s.nonce), .optional(s.codeVerifier ?? s.result?.codeVerifier), .optional(s.codeChallenge),
            .text(s.redirect.string), .optional(s.appCallback?.string), .text(s.authorizeURL), .text(s.authorizationOrigin),
            .text(s.resumeHosts.joined(separator: " ")), .optional(s.resumePathPrefix), .text(s.resumeMode.rawValue),
            .optional(s.browser), .optional(s.issuer), .bool(s.requireIssuer), .text(s.status.rawValue),
            .optional(s.result.flatMap { $0.code.isEmpty ? nil : $0.code }), .optional(s.result.flatMap { $0.callbackURI.isEmpty ? nil : $0.callbackURI }),
            .optional(s.result?.issuer),
            .optional(s.failure?.code.rawValue), .optional(s.failure?.providerError), .optional(s.failure?.providerDescription),
            .optional(s.failure?.message), .bool(s.resumeOpened), .bool(s.delivered), .integer(s.createdAt),
            .integer(s.expiresAt), .optional(s.finishedAt),
        ])
        dirtySinceCheckpoint = true
    }

    /// A small setting kept with the sessions (the bus id they belong to).
    public func meta(_ key: String) throws(StoreError) -> String? {
        let s = try db.prepare("SELECT value FROM meta WHERE key = ?1")
        try s.bind([.text(key)])
        return try s.step() ? s.text(0) : nil
    }

    public func setMeta(_ key: String, _ value: String) throws(StoreError) {
        try db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)").run([.text(key), .text(value)])
    }

    public func delete(_ id: SessionID) throws(StoreError) {
        try remove.run([.text(id.rawValue)])
        dirtySinceCheckpoint = true
    }

    /// Folds the WAL back into the database and truncates it, so overwritten
    /// codes and verifiers do not linger in old WAL frames.
    public func checkpoint() {
        guard dirtySinceCheckpoint else { return }
        _ = try? db.text("PRAGMA wal_checkpoint(TRUNCATE)")
        dirtySinceCheckpoint = false
    }

    /// Every stored session. Rows that no longer parse are reported and deleted.
    public func loadAll() throws(StoreError) -> (sessions: [Session], problems: [String]) {
        let s = try db.prepare("SELECT \(Self.columns) FROM sessions")
        var sessions: [Session] = []
        var bad: [String] = []
        var problems: [String] = []
        while try s.step() {
            let id = s.text(0) ?? ""
            if let session = Self.decode(s) {
                sessions.append(session)
            } else {
                bad.append(id)
                problems.append("stored session \(id.prefix(8)) is unreadable; dropped")
            }
        }
        for id in bad { try remove.run([.text(id)]) }
        return (sessions, problems)
    }

    private static func decode(_ s: SQLiteStatement) -> Session? {
        guard let id = s.text(0).flatMap({ SessionID($0) }), let mode = s.text(1).flatMap(Session.Mode.init(rawValue:)),
              let state = s.text(4), let redirectText = s.text(8),
              let redirect = try? CallbackURI.parse(redirectText, role: "redirect_uri"),
              let authorizeURL = s.text(10), let origin = s.text(11),
              let resumeMode = s.text(14).flatMap(ResumeMode.init(rawValue:)),
              let status = s.text(18).flatMap(SessionStatus.init(rawValue:))
        else { return nil }
        var appCallback: CallbackURI?
        if let a = s.text(9) {
            guard let parsed = try? CallbackURI.parse(a, role: "app_callback_uri") else { return nil }
            appCallback = parsed
        }
        let verifier = s.text(6)
        var result: AuthorizationResult?
        let delivered = s.int64(27) != 0
        if status == .completed {
            result = AuthorizationResult(
                code: s.text(19) ?? "", state: state, redirectURI: redirect.string, callbackURI: s.text(20) ?? "",
                issuer: s.text(21), codeVerifier: delivered ? nil : verifier, nonce: s.text(5))
        }
        var failure: SessionFailure?
        if let code = s.text(22).flatMap(RouterError.Code.init(rawValue:)) {
            failure = SessionFailure(code: code, providerError: s.text(23), providerDescription: s.text(24), message: s.text(25) ?? "")
        }
        let hosts = (s.text(12) ?? "").split(separator: " ").map(String.init)
        return Session(
            id: id, mode: mode, owner: s.text(2), claimTokenDigest: s.blob(3), state: state, nonce: s.text(5),
            codeVerifier: !status.isFinished || (status == .completed && !delivered) ? verifier : nil, codeChallenge: s.text(7), redirect: redirect,
            appCallback: appCallback, authorizeURL: authorizeURL, authorizationOrigin: origin, resumeHosts: hosts,
            resumePathPrefix: s.text(13), resumeMode: resumeMode, browser: s.text(15), issuer: s.text(16),
            requireIssuer: s.int64(17) != 0, status: status, result: result, failure: failure,
            resumeOpened: s.int64(26) != 0, delivered: delivered, createdAt: s.int64(28), expiresAt: s.int64(29),
            finishedAt: s.isNull(30) ? nil : s.int64(30))
    }
}
