import LinkRouterCore
import SystemKit

/// Printing for people (aligned `key  value` lines, tables) and for scripts (`--json`).
enum Output {
    static func line(_ text: String) { StandardStreams.out(text + "\n") }

    /// A one-line reason on stderr, prefixed with the program name.
    static func error(_ text: String) { StandardStreams.err("linkctl: " + text + "\n") }

    static func json(_ value: JSON) { line(value.text) }

    /// `key  value` lines with the values aligned.
    static func fields(_ pairs: [(String, String)]) {
        let width = pairs.map { $0.0.count }.max() ?? 0
        for (k, v) in pairs { line(k + String(repeating: " ", count: width - k.count + 2) + PrintableText.shown(v)) }
    }

    /// Columns padded to their widest cell; the last column is not padded.
    /// Every cell escaped (`PrintableText`): a provider's or an app's text is never a terminal's command.
    static func table(_ header: [String], _ rows: [[String]]) {
        let all = [header] + rows.map { $0.map(PrintableText.shown) }
        var widths = [Int](repeating: 0, count: header.count)
        for r in all { for (i, c) in r.enumerated() where i < widths.count { widths[i] = max(widths[i], c.count) } }
        for r in all {
            var text = ""
            for (i, c) in r.enumerated() {
                text += i == r.count - 1 ? c : c + String(repeating: " ", count: widths[i] - c.count + 2)
            }
            line(text)
        }
    }
}
