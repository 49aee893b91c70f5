import SystemKit

/// Reads a QR code drawn on a terminal in half blocks (linkctl's `TerminalQR`)
/// with Debian's zbarimg, as a phone's camera would read the screen: the
/// blocks become a bitmap, each module 4 × 4 pixels, light where drawn.
enum QRReader {
    static let unavailable: String? =
        FileSystem.isExecutable("/usr/bin/zbarimg")
        ? nil : "zbarimg is missing (Debian: zbar-tools); scripts/setup --test installs it"

    /// The text of the first QR code drawn in `text` (its lines of blocks), or nil.
    static func read(_ text: String, in directory: String) throws -> String? {
        let blocks: Set<Character> = ["█", "▀", "▄", " "]
        let rows = text.split(separator: "\n", omittingEmptySubsequences: false).filter { line in
            line.count > 20 && line.allSatisfy { blocks.contains($0) } && line.contains("█")
        }
        guard let width = rows.first?.count, rows.allSatisfy({ $0.count == width }) else { return nil }
        // Two module rows per line: top and bottom halves; drawn (light) is 0, dark is 1 in a PBM.
        var modules: [[Bool]] = []
        for line in rows {
            modules.append(line.map { $0 == " " || $0 == "▄" })
            modules.append(line.map { $0 == " " || $0 == "▀" })
        }
        let scale = 4
        var pbm = "P1\n\(width * scale) \(modules.count * scale)\n"
        for row in modules {
            let pixels = row.flatMap { Array(repeating: $0 ? "1" : "0", count: scale) }.joined(separator: " ")
            for _ in 0..<scale { pbm += pixels + "\n" }
        }
        let path = directory + "/qr.pbm"
        try FileSystem.writeAtomically(path, text: pbm, permissions: 0o600)
        let r = try Subprocess.run(["/usr/bin/zbarimg", "-q", "--raw", path])
        guard r.status == 0 else { return nil }
        return r.text.trimmingCharacters(in: .newlines)
    }
}
