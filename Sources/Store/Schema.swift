/// The store's schema, versioned by `PRAGMA user_version`. Each migration
/// moves one version up; they run in a transaction at open, so a store is
/// always at exactly one version.
enum Schema {
    static let migrations: [String] = [
        // 1: sessions.
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
        """,
        // 2: the token exchange a session makes after its callback (`TokenExchange.stored`).
        "ALTER TABLE sessions ADD COLUMN exchange TEXT;",
    ]

    static var version: Int64 { Int64(migrations.count) }
}
