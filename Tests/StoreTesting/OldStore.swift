import Glibc
import SystemKit

/// Session stores as older daemons left them, for the tests that migrate
/// them: the store's own (`SessionStoreTests`) and an upgraded daemon's
/// (`UpgradeTests`). Written with Debian's `sqlite3`, not with the store.
public enum OldStore {
    /// Schema 1's tables (a column a field), with schema 2's `exchange` column when `schema` is 2.
    public static func tables(schema: Int) -> String {
        """
        CREATE TABLE sessions (id TEXT PRIMARY KEY NOT NULL, mode TEXT NOT NULL, owner TEXT, claim_digest BLOB,
          state TEXT NOT NULL UNIQUE, nonce TEXT, code_verifier TEXT, redirect_uri TEXT NOT NULL, app_callback_uri TEXT,
          authorization_origin TEXT NOT NULL, resume_hosts TEXT NOT NULL, resume_path_prefix TEXT, resume_mode TEXT NOT NULL,
          browser TEXT, issuer TEXT, require_iss INTEGER NOT NULL, status TEXT NOT NULL, result_code TEXT,
          result_callback_uri TEXT, result_iss TEXT, failure_code TEXT, failure_error TEXT, failure_description TEXT,
          failure_message TEXT, resume_opened INTEGER NOT NULL, delivered INTEGER NOT NULL, created_at INTEGER NOT NULL,
          expires_at INTEGER NOT NULL, finished_at INTEGER\(schema == 1 ? "" : ", exchange TEXT")) STRICT, WITHOUT ROWID;
        CREATE TABLE meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) STRICT;
        """
    }

    /// A store of `schema` at `path` holding `statements` (its rows), 0600 as the store requires (P3).
    public static func write(_ path: String, schema: Int, statements: String) throws(SystemError) {
        try FileSystem.ensurePrivateDirectory(FileSystem.directoryName(path))
        let sql = tables(schema: schema) + "\n" + statements + "\nPRAGMA user_version = \(schema);\n"
        let r = try Subprocess.run(["sqlite3", path, sql])
        guard r.status == 0 else { throw SystemError("sqlite3: \(r.errorText)", path: path, code: EIO) }
        // sqlite3 makes it 0644, which the store refuses as shared.
        guard chmod(path, 0o600) == 0 else { throw SystemError("chmod", path: path) }
    }
}
