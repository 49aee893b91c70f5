import Glibc

/// The process's arguments, read strictly. `CommandLine.arguments` replaces
/// bytes that are not UTF-8 with U+FFFD, which would turn a malformed link
/// into a different, valid-looking one; here such an argument is named instead.
public enum ProcessArguments {
    /// Every argument, and the index of the first one that is not valid UTF-8 (nil when all are).
    public static func read() -> (arguments: [String], invalidIndex: Int?) {
        var arguments: [String] = []
        var invalid: Int?
        for i in 0..<Int(CommandLine.argc) {
            guard let p = CommandLine.unsafeArgv[i] else { break }
            let bytes = UnsafeBufferPointer(
                start: UnsafeRawPointer(p).assumingMemoryBound(to: UInt8.self), count: strlen(p))
            if let text = String(validating: bytes, as: UTF8.self) {
                arguments.append(text)
            } else {
                arguments.append(String(decoding: bytes, as: UTF8.self))
                if invalid == nil { invalid = i }
            }
        }
        return (arguments, invalid)
    }
}
