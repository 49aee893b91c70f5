import Glibc

/// Writing to stdout and stderr with plain `write(2)`: no stdio buffers to
/// flush at exit and no shared `FILE*` globals (which Swift 6 rightly flags).
public enum StandardStreams {
    public static func write(_ text: String, to fd: Int32) { write(bytes: Array(text.utf8), to: fd) }

    /// Bytes as they are (a body that need not be text).
    public static func write(bytes: [UInt8], to fd: Int32) {
        var bytes = bytes
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += n
        }
        bytes.removeAll()
    }

    public static func out(_ text: String) { write(text, to: 1) }
    public static func err(_ text: String) { write(text, to: 2) }

    /// Whether standard error is a terminal (a person is reading it, not a log).
    public static var errIsTerminal: Bool { isatty(2) == 1 }

    /// Standard input to its end, at most `maxBytes` (a secret piped in, not typed on a command line).
    public static func readAll(maxBytes: Int) -> [UInt8] {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while out.count < maxBytes {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(0, $0.baseAddress!, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            out += buffer[..<n]
        }
        return Array(out.prefix(maxBytes))
    }
}
