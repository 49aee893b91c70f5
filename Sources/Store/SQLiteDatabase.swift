internal import CSQLite
import LinkRouterCore

/// One SQLite connection, closed in `deinit`. Used from one thread only.
final class SQLiteDatabase {
    let raw: OpaquePointer

    /// Opens (creating) `path`; symlinks are refused (`SQLITE_OPEN_NOFOLLOW`, threat model P3).
    init(path: String) throws(StoreError) {
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let db { sqlite3_close_v2(db) }
            throw StoreError(code: rc & 0xFF, message: "cannot open \(path): \(message)")
        }
        raw = db
        sqlite3_extended_result_codes(db, 0)
        sqlite3_busy_timeout(db, 2000)
    }

    deinit { sqlite3_close_v2(raw) }

    func error(_ rc: Int32, _ context: String) -> StoreError {
        StoreError(code: rc & 0xFF, message: "\(context): \(String(cString: sqlite3_errmsg(raw)))")
    }

    func execute(_ sql: String) throws(StoreError) {
        let rc = sqlite3_exec(raw, sql, nil, nil, nil)
        guard rc == SQLITE_OK else { throw error(rc, "SQL failed") }
    }

    func prepare(_ sql: String) throws(StoreError) -> SQLiteStatement {
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v3(raw, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &stmt, nil)
        guard rc == SQLITE_OK, let stmt else { throw error(rc, "cannot prepare a statement") }
        return SQLiteStatement(raw: stmt, database: self)
    }

    /// One integer from a query such as `PRAGMA user_version`.
    func integer(_ sql: String) throws(StoreError) -> Int64 {
        let s = try prepare(sql)
        guard try s.step() else { return 0 }
        return s.int64(0)
    }

    /// One text value from a query such as `PRAGMA journal_mode=WAL`.
    func text(_ sql: String) throws(StoreError) -> String? {
        let s = try prepare(sql)
        guard try s.step() else { return nil }
        return s.text(0)
    }

    /// Rows the last statement changed.
    var changes: Int32 { sqlite3_changes(raw) }

    /// Runs `body` in one `BEGIN IMMEDIATE` transaction: all of it commits or none.
    func transaction<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }
}

/// A prepared statement, finalized in `deinit`.
final class SQLiteStatement {
    let raw: OpaquePointer
    unowned let database: SQLiteDatabase

    init(raw: OpaquePointer, database: SQLiteDatabase) {
        self.raw = raw
        self.database = database
    }

    deinit { sqlite3_finalize(raw) }

    /// Binds `values` to ?1, ?2, … after a reset.
    func bind(_ values: [SQLiteValue]) throws(StoreError) {
        sqlite3_reset(raw)
        sqlite3_clear_bindings(raw)
        for (i, v) in values.enumerated() {
            let index = Int32(i + 1)
            let rc: Int32
            switch v {
            case .null: rc = sqlite3_bind_null(raw, index)
            case .integer(let n): rc = sqlite3_bind_int64(raw, index, n)
            case .text(let s):
                rc = s.withCString { lr_sqlite3_bind_text_copy(raw, index, $0, Int32(s.utf8.count)) }
            case .blob(let b):
                rc = b.withUnsafeBytes { lr_sqlite3_bind_blob_copy(raw, index, $0.baseAddress, Int32(b.count)) }
            }
            guard rc == SQLITE_OK else { throw database.error(rc, "cannot bind a value") }
        }
    }

    /// True while there is a row; false when done.
    func step() throws(StoreError) -> Bool {
        let rc = sqlite3_step(raw)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        throw database.error(rc, "statement failed")
    }

    /// Runs a statement that returns no rows.
    func run(_ values: [SQLiteValue]) throws(StoreError) {
        try bind(values)
        while try step() {}
        sqlite3_reset(raw)
    }

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(raw, column) == SQLITE_NULL }
    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(raw, column) }
    func text(_ column: Int32) -> String? {
        guard let p = sqlite3_column_text(raw, column) else { return nil }
        return String(
            decoding: UnsafeBufferPointer(start: p, count: Int(sqlite3_column_bytes(raw, column))), as: UTF8.self)
    }
    /// The column's bytes, valid until the statement steps again (nil for NULL).
    func withBytes<R>(_ column: Int32, _ body: (UnsafeBufferPointer<UInt8>) -> R?) -> R? {
        guard let p = sqlite3_column_text(raw, column) else { return nil }
        return body(UnsafeBufferPointer(start: p, count: Int(sqlite3_column_bytes(raw, column))))
    }

    /// The column's text, or `previous` itself when the bytes are the same:
    /// a restore reads the same callback, origin and owner in row after row,
    /// and a shared string is neither allocated nor validated again.
    func text(_ column: Int32, reusing previous: inout String?) -> String? {
        guard let p = sqlite3_column_text(raw, column) else { return nil }
        let bytes = UnsafeBufferPointer(start: p, count: Int(sqlite3_column_bytes(raw, column)))
        if var known = previous, known.withUTF8({ ByteKey.equal($0, bytes) }) { return known }
        let fresh = String(decoding: bytes, as: UTF8.self)
        previous = fresh
        return fresh
    }

    /// The column as one of an enum's raw values, compared as bytes (no string is made).
    func value<E: RawRepresentable & CaseIterable>(_ column: Int32, as: E.Type) -> E? where E.RawValue == String {
        guard let p = sqlite3_column_text(raw, column) else { return nil }
        let bytes = UnsafeBufferPointer(start: p, count: Int(sqlite3_column_bytes(raw, column)))
        return E.allCases.first { c in
            var r = c.rawValue
            return r.withUTF8 { ByteKey.equal($0, bytes) }
        }
    }

    func blob(_ column: Int32) -> [UInt8]? {
        guard let p = sqlite3_column_blob(raw, column) else { return isNull(column) ? nil : [] }
        return Array(UnsafeRawBufferPointer(start: p, count: Int(sqlite3_column_bytes(raw, column))))
    }
}

/// A value to bind.
enum SQLiteValue {
    case null
    case integer(Int64)
    case text(String)
    case blob([UInt8])

    static func optional(_ s: String?) -> SQLiteValue { s.map { .text($0) } ?? .null }
    static func optional(_ n: Int64?) -> SQLiteValue { n.map { .integer($0) } ?? .null }
    static func bool(_ b: Bool) -> SQLiteValue { .integer(b ? 1 : 0) }
}
