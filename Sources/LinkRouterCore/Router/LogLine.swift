/// How loud a log line is; the daemon maps it to journald's `<N>` prefix.
public enum LogPriority: Int, Sendable {
    case error = 3, warning = 4, notice = 5, info = 6
}

/// One line the daemon writes, formatted only if the flood limiter lets it
/// through (a flood of refused links must not cost a formatted string each).
/// Compared by its text, so transitions stay comparable in tests.
public struct LogLine: Sendable, Equatable, CustomStringConvertible {
    public let priority: LogPriority
    private let render: @Sendable () -> String

    public init(_ priority: LogPriority, _ text: @escaping @Sendable @autoclosure () -> String) {
        self.priority = priority
        self.render = text
    }

    public var text: String { render() }
    public var description: String { "<\(priority.rawValue)>\(text)" }

    public static func == (a: LogLine, b: LogLine) -> Bool { a.priority == b.priority && a.text == b.text }
}
