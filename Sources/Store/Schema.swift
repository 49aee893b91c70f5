/// The store's schema, versioned by `PRAGMA user_version`. Each migration
/// moves one version up; they run in a transaction at open, so a store is
/// always at exactly one version. Most are SQL; one that reshapes rows
/// (schema 3: a header and one flow value) is Swift, reading the old rows
/// with the decoder of their version (`Schema2Rows`).
enum Schema {
    enum Migration: Sendable {
        case sql(String)
        /// Returns what it could not carry over, one line each.
        case rewrite(@Sendable (SQLiteDatabase) throws(StoreError) -> [String])
    }

    static let migrations: [Migration] = [
        // 1: sessions, one column a field.
        .sql(
            """
            CREATE TABLE sessions (
                id TEXT PRIMARY KEY NOT NULL,
                mode TEXT NOT NULL,
                owner TEXT,
                claim_digest BLOB,
                state TEXT NOT NULL UNIQUE,
                nonce TEXT,
                code_verifier TEXT,
                redirect_uri TEXT NOT NULL,
                app_callback_uri TEXT,
                authorization_origin TEXT NOT NULL,
                resume_hosts TEXT NOT NULL,
                resume_path_prefix TEXT,
                resume_mode TEXT NOT NULL,
                browser TEXT,
                issuer TEXT,
                require_iss INTEGER NOT NULL,
                status TEXT NOT NULL,
                result_code TEXT,
                result_callback_uri TEXT,
                result_iss TEXT,
                failure_code TEXT,
                failure_error TEXT,
                failure_description TEXT,
                failure_message TEXT,
                resume_opened INTEGER NOT NULL,
                delivered INTEGER NOT NULL,
                created_at INTEGER NOT NULL,
                expires_at INTEGER NOT NULL,
                finished_at INTEGER
            ) STRICT, WITHOUT ROWID;
            CREATE TABLE meta (
                key TEXT PRIMARY KEY NOT NULL,
                value TEXT NOT NULL
            ) STRICT;
            """),
        // 2: the token exchange a session makes after its callback.
        .sql("ALTER TABLE sessions ADD COLUMN exchange TEXT;"),
        // 3: a header of columns every session has, and its flow as one versioned value.
        .rewrite(Schema2Rows.migrate),
    ]

    /// The current table (schema 3).
    static let sessionsTable = """
        CREATE TABLE sessions (
            id TEXT PRIMARY KEY NOT NULL,
            owner TEXT,
            owner_app TEXT,
            claim_digest BLOB,
            status TEXT NOT NULL,
            result_code TEXT,
            result_callback_uri TEXT,
            result_iss TEXT,
            failure_code TEXT,
            failure_error TEXT,
            failure_description TEXT,
            failure_message TEXT,
            released INTEGER NOT NULL,
            created_at INTEGER NOT NULL,
            expires_at INTEGER NOT NULL,
            finished_at INTEGER,
            flow_kind TEXT NOT NULL,
            flow TEXT NOT NULL
        ) STRICT, WITHOUT ROWID;
        """

    static var version: Int64 { Int64(migrations.count) }
}
