/// A store operation failed; `message` is SQLite's own words plus context.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    /// SQLite's primary result code (`SQLITE_FULL`, `SQLITE_READONLY`…), or 0.
    public let code: Int32
    public let message: String
    public var description: String { message }

    public init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }

    /// The database file is not a database, or is damaged: move it aside.
    public var isCorruption: Bool { code == 11 || code == 26 }  // SQLITE_CORRUPT, SQLITE_NOTADB
}
