/// A method's options, in linkctl's order (docs/dbus-api.md lists them in
/// the same order): `SessionRequest.options` for `BeginSession` and `Login`,
/// `RefreshRequest.options` for `RefreshTokens`.
public struct OptionTable<Request>: Sendable {
    public let method: String
    public let rows: [OptionRow<Request>]
    /// Each row's field alone, for the store's writes and reads: copying a
    /// whole row retains its key, flag and help texts, ~2.5 k instructions a
    /// stored login (bench: an owner's 10,000 sessions settling).
    let fields: [OptionRow<Request>.Field]

    public init(method: String, _ rows: [OptionRow<Request>]) {
        self.method = method
        self.rows = rows
        self.fields = rows.map(\.field)
    }

    /// The row with this D-Bus key.
    public func named(_ key: String) -> OptionRow<Request>? { rows.first { $0.key == key } }

    /// Every key, in the table's order, for an error message that lists them.
    public var keys: [String] { rows.map(\.key) }

    /// Every string option within its limit: the first one too long is refused.
    public func checkLengths(_ request: Request, limits: Limits) throws(RouterError) {
        for row in rows {
            guard case .string(_, let get) = row.field, let max = row.limit.bytes(limits), let value = get(request)
            else { continue }
            if value.utf8.count > max {
                throw .invalid("\(row.key) is \(value.utf8.count) bytes long; the limit is \(max)")
            }
        }
    }
}
