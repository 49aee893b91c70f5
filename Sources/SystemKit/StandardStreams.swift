import Glibc

/// Writing to stdout and stderr with plain `write(2)`: no stdio buffers to
/// flush at exit and no shared `FILE*` globals (which Swift 6 rightly flags).
public enum StandardStreams {
    public static func write(_ text: String, to fd: Int32) {
        var bytes = Array(text.utf8)
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
}
