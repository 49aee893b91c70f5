import Testing

/// Under `scripts/test --sanitize=…` the daemon and linkctl are built with a
/// sanitizer; a report in their output fails the test that ran them, even when
/// the process itself carried on (ThreadSanitizer does by default).
enum SanitizerReport {
    static let markers = [
        "ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "WARNING: ThreadSanitizer", "ERROR: ThreadSanitizer",
        "runtime error: ",
    ]

    /// The report's first lines, if `output` holds one.
    static func find(in output: String) -> String? {
        guard let marker = markers.first(where: output.contains) else { return nil }
        let tail = output[output.range(of: marker)!.lowerBound...]
        return tail.split(separator: "\n").prefix(12).joined(separator: "\n")
    }

    static func check(_ output: String, from program: String, sourceLocation: SourceLocation = #_sourceLocation) {
        if let report = find(in: output) {
            Issue.record("\(program) printed a sanitizer report:\n\(report)", sourceLocation: sourceLocation)
        }
    }
}
