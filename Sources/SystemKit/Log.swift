/// One line per event on stderr, with journald's `<N>` priority prefix
/// (sd-daemon(3)), systemd-style wording. Codes, verifiers and tokens are
/// never passed here: callers log a session's short tag instead.
public enum Log {
    public enum Priority: Int, Sendable {
        case error = 3, warning = 4, notice = 5, info = 6, debug = 7
    }

    public static func write(_ priority: Priority, _ message: String) {
        // One write per line so concurrent writers never interleave inside it.
        let clean = String(decoding: message.utf8.map { $0 < 0x20 ? 0x20 : $0 }, as: UTF8.self)
        StandardStreams.err("<\(priority.rawValue)>" + clean + "\n")
    }

    public static func error(_ message: String) { write(.error, message) }
    public static func warning(_ message: String) { write(.warning, message) }
    public static func notice(_ message: String) { write(.notice, message) }
    public static func info(_ message: String) { write(.info, message) }
}
