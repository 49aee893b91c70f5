internal import CQREncode
import SystemKit

/// A QR code of a text, made by libqrencode (dlopen()ed on first use), for a
/// phone to read off a terminal: a device login's page (RFC 8628 §3.3.1).
public struct QRCode: Sendable, Equatable {
    /// Modules per side.
    public let width: Int
    /// Row by row, `true` for a dark module.
    public let dark: [Bool]

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public init(_ text: String) throws(Failure) {
        guard let library = Self.library else {
            throw Failure(description: "libqrencode.so.4 (Debian: libqrencode4) cannot be loaded")
        }
        guard let encode = library.symbol("QRcode_encodeString"), let free = library.symbol("QRcode_free") else {
            throw Failure(description: "libqrencode.so.4 lacks QRcode_encodeString or QRcode_free")
        }
        guard let code = text.withCString({ lr_qrcode_encode(encode, $0) }) else {
            throw Failure(description: "libqrencode could not encode \(text.utf8.count) bytes")
        }
        defer { lr_qrcode_free(free, code) }
        let side = Int(code.pointee.width)
        width = side
        dark = (0..<side * side).map { code.pointee.data[$0] & 1 == 1 }
    }

    public init(width: Int, dark: [Bool]) {
        self.width = width
        self.dark = dark
    }

    private static let library: SharedLibrary? = try? SharedLibrary.open("libqrencode.so.4").get()

    /// For a terminal: two module rows a line in half blocks, light modules drawn
    /// (a terminal's text is light on dark, so the code reads as dark on light),
    /// inside the quiet zone of 4 modules the standard asks for.
    public var terminalText: String {
        let quiet = 4
        let side = width + 2 * quiet
        func isDark(_ row: Int, _ column: Int) -> Bool {
            let (r, c) = (row - quiet, column - quiet)
            guard r >= 0, r < width, c >= 0, c < width else { return false }
            return dark[r * width + c]
        }
        var lines: [String] = []
        for row in stride(from: 0, to: side, by: 2) {
            var line = ""
            for column in 0..<side {
                switch (isDark(row, column), row + 1 < side ? isDark(row + 1, column) : true) {
                case (false, false): line += "█"
                case (false, true): line += "▀"
                case (true, false): line += "▄"
                case (true, true): line += " "
                }
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
