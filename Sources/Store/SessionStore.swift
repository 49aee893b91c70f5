import Glibc
public import LinkRouterCore
import SystemKit

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
    private let insertStatement: SQLiteStatement
    private let updateStatement: SQLiteStatement
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
    /// Rows a migration at open could not carry over, for the daemon's log.
    public private(set) var migrationProblems: [String] = []

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
            (db, migrationProblems) = try Self.openChecked(path)
        } catch  where error.isCorruption {
            opening = .quarantined(try Self.moveAside(path), reason: error.message)
            try Self.createPrivately(path)
            (db, migrationProblems) = try Self.openChecked(path)
        }
        if case .fresh = opening, existed { opening = .existing }
        _ = chmod(path, 0o600)
        self.db = db
        insertStatement = try db.prepare(Self.insertSQL)
        updateStatement = try db.prepare(Self.updateSQL)
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
    private static func openChecked(_ path: String) throws(StoreError) -> (SQLiteDatabase, [String]) {
        let db = try SQLiteDatabase(path: path)
        try db.execute("PRAGMA secure_delete = ON")
        // Freed pages go back to the file system (`incremental_vacuum` at each
        // checkpoint), so a burst of sessions does not leave the file at its
        // peak for the rest of the daemon's life. Set before any table exists;
        // a store made without it is rebuilt once.
        if try db.integer("PRAGMA auto_vacuum") != 2 {
            try db.execute("PRAGMA auto_vacuum = INCREMENTAL")
            if try db.integer("PRAGMA user_version") > 0 { try db.execute("VACUUM") }
        }
        guard try db.text("PRAGMA journal_mode = WAL")?.lowercased() == "wal" else {
            throw StoreError(code: 0, message: "\(path): cannot switch to WAL mode")
        }
        try db.execute("PRAGMA synchronous = NORMAL")
        // 1 MiB of page cache: a lookup of a cold page is a tmpfs read, cheaper than the memory.
        try db.execute("PRAGMA cache_size = -1024")
        // No integrity scan at open (it read every page: a third of a 10,000-session
        // restore); SQLite reports a damaged page when it is read, and `loadAll`
        // reads them all, so the daemon moves a damaged store aside then.
        let version = try db.integer("PRAGMA user_version")
        guard version <= Schema.version else {
            throw StoreError(
                code: 0,
                message:
                    "\(path) has schema version \(version), newer than this linkrouterd (\(Schema.version)); stop the newer daemon or remove the file"
            )
        }
        var dropped: [String] = []
        if version < Schema.version {
            try db.transaction { () throws(StoreError) in
                for v in Int(version)..<Schema.migrations.count {
                    switch Schema.migrations[v] {
                    case .sql(let sql): try db.execute(sql)
                    case .rewrite(let migrate): dropped += try migrate(db)
                    }
                }
                try db.execute("PRAGMA user_version = \(Schema.version)")
            }
        }
        return (db, dropped)
    }

    /// Moves the store in `directory` aside (after it was found damaged while open).
    public static func quarantine(directory: String) throws(StoreError) {
        _ = try moveAside(directory + "/" + fileName)
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

    /// The header's columns and the flow (schema 3): what every session has,
    /// then one versioned value for what its kind of login must remember.
    static let columns = """
        id, owner, owner_app, claim_digest, status, result_code, result_callback_uri, result_iss, failure_code,
        failure_error, failure_description, failure_message, released, created_at, expires_at, finished_at, flow_kind, flow
        """

    static let insertSQL =
        "INSERT OR REPLACE INTO sessions (\(columns)) VALUES (" + (1...18).map { "?\($0)" }.joined(separator: ", ")
        + ")"

    /// Everything but what never changes after `BeginSession` (id, claim digest, times of creation and expiry, kind).
    static let updateSQL = """
        UPDATE sessions SET owner = ?2, owner_app = ?3, status = ?5, result_code = ?6, result_callback_uri = ?7, result_iss = ?8,
            failure_code = ?9, failure_error = ?10, failure_description = ?11, failure_message = ?12, released = ?13,
            finished_at = ?16, flow = ?18
        WHERE id = ?1
        """

    /// A session's row, column by column, in `columns`' order.
    static func row(_ s: Session) -> [SQLiteValue] {
        [
            .text(s.id.rawValue), .optional(s.owner?.name), .optional(s.owner.map(\.app.label)),
            s.claimTokenDigest.map { .blob($0) } ?? .null,
            .text(s.status.rawValue),
            .optional(s.result.flatMap { $0.code.isEmpty ? nil : $0.code }),
            .optional(s.result.flatMap { $0.callbackURI.isEmpty ? nil : $0.callbackURI }), .optional(s.result?.issuer),
            .optional(s.failure?.code.rawValue), .optional(s.failure?.providerError),
            .optional(s.failure?.providerDescription),
            .optional(s.failure?.message), .bool(s.released), .integer(s.createdAt), .integer(s.expiresAt),
            .optional(s.finishedAt),
            .text(s.login.kind), .text(s.login.stored),
        ]
    }

    /// Writes a new session (its whole row).
    public func insert(_ s: Session) throws(StoreError) {
        try insertStatement.run(Self.row(s))
        dirtySinceCheckpoint = true
    }

    /// Writes what changed in a session already stored (or the whole row if it is not).
    public func update(_ s: Session) throws(StoreError) {
        try updateStatement.run(Self.row(s))
        dirtySinceCheckpoint = true
        if db.changes == 0 { try insert(s) }
    }

    /// Writes what one transition changed; several changes go in one
    /// transaction (a restart that finds 10,000 owners gone cancels them
    /// with one commit, not 10,000), so they are all written or none is.
    /// A restored session is already here and is not written again.
    public func write(_ changes: [SessionChange]) throws(StoreError) {
        func one(_ c: SessionChange) throws(StoreError) {
            switch c {
            case .insert(let s): try insert(s)
            case .update(let s): try update(s)
            case .remove(let id): try delete(id)
            case .restore, .handedOff: break
            }
        }
        let written = changes.filter(\.isWritten)
        guard written.count > 1 else {
            if let c = written.first { try one(c) }
            return
        }
        try db.transaction { () throws(StoreError) in
            for c in written { try one(c) }
        }
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
        try? db.execute("PRAGMA incremental_vacuum")
        _ = try? db.text("PRAGMA wal_checkpoint(TRUNCATE)")
        // The page cache filled during the burst; at rest the daemon needs none of it.
        try? db.execute("PRAGMA shrink_memory")
        dirtySinceCheckpoint = false
    }

    /// Every stored session. Rows that no longer parse are reported and deleted.
    public func loadAll() throws(StoreError) -> (sessions: [Session], problems: [String]) {
        var sessions: [Session] = []
        let problems = try forEach { sessions.append($0) }
        return (sessions, problems)
    }

    /// How many sessions are stored.
    public func count() throws(StoreError) -> Int { Int(try db.integer("SELECT count(*) FROM sessions")) }

    /// Hands over each stored session as it is read. Rows that no longer parse are deleted and reported.
    public func forEach(_ body: (Session) -> Void) throws(StoreError) -> [String] {
        let s = try db.prepare("SELECT \(Self.columns) FROM sessions")
        var bad: [String] = []
        var problems: [String] = []
        // Sessions of one app share their callbacks: parse each distinct one once.
        var parsed: [ByteKey: CallbackURI?] = [:]
        func callback(_ text: String, _ role: String) -> CallbackURI? {
            if let known = parsed[ByteKey(text)] { return known }
            let c = try? CallbackURI.parse(text, role: role)
            parsed[ByteKey(text)] = c
            return c
        }
        var owner: String?
        var reuse = StoredReuse(parse: callback)
        while try s.step() {
            if let session = Self.decode(s, &owner, &reuse) {
                body(session)
            } else {
                let id = s.text(0) ?? ""
                bad.append(id)
                problems.append("stored session \(id.prefix(8)) is unreadable; dropped")
            }
        }
        for id in bad { try remove.run([.text(id)]) }
        return problems
    }

    private static func decode(
        _ s: SQLiteStatement, _ lastOwner: inout String?, _ reuse: inout StoredReuse
    ) -> Session? {
        guard let id = s.text(0).flatMap({ SessionID($0) }), let status = s.value(4, as: SessionStatus.self),
            let kind = s.text(16),
            var login = s.withBytes(17, { Login(kind: kind, bytes: $0, reuse: &reuse) })
        else { return nil }
        let released = s.int64(12) != 0
        var result: AuthorizationResult?
        switch login {
        case .code(var c):
            // A finished session keeps no verifier unless it still holds a completed result.
            if c.codeVerifier != nil, status.isFinished && !(status == .completed && !released) {
                c.codeVerifier = nil
                login = .code(c)
            }
            if status == .completed || status == .exchanging {
                result = AuthorizationResult(
                    code: s.text(5) ?? "", state: c.state, redirectURI: c.redirect.string, callbackURI: s.text(6) ?? "",
                    issuer: s.text(7), codeVerifier: released ? nil : c.codeVerifier, nonce: c.nonce)
            }
        case .signOut(let o):
            if status == .completed {
                result = AuthorizationResult(
                    code: "", state: o.state, redirectURI: o.redirect.string, callbackURI: s.text(6) ?? "",
                    issuer: s.text(7), codeVerifier: nil, nonce: nil)
            }
        case .device:
            // Its tokens were never written: a completed one is failed at restore (`Router.restored`).
            break
        }
        var failure: SessionFailure?
        if let code = s.text(8).flatMap(RouterError.Code.init(rawValue:)) {
            failure = SessionFailure(
                code: code, providerError: s.text(9), providerDescription: s.text(10), message: s.text(11) ?? "")
        }
        let owner = s.text(1, reusing: &lastOwner).map {
            Caller(name: $0, app: s.text(2).flatMap(CallerApp.init(label:)) ?? .unknown)
        }
        return Session(
            id: id, owner: owner, claimTokenDigest: s.blob(3), login: login, status: status, result: result,
            failure: failure,
            released: released, createdAt: s.int64(13), expiresAt: s.int64(14),
            finishedAt: s.isNull(15) ? nil : s.int64(15))
    }
}
