extension Substring {
    /// Without the optional whitespace (SP, HTAB) HTTP allows around field values and list items.
    func trimmingSpaces() -> String {
        var s = self
        while let c = s.first, c == " " || c == "\t" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" { s.removeLast() }
        return String(s)
    }
}
