import Glibc

/// A failed system call: what was attempted, on what, and `errno`'s words.
public struct SystemError: Error, Sendable, CustomStringConvertible, Equatable {
    public let operation: String
    public let path: String?
    public let code: Int32

    public init(_ operation: String, path: String? = nil, code: Int32 = errno) {
        self.operation = operation
        self.path = path
        self.code = code
    }

    public var reason: String { String(cString: strerror(code)) }

    public var description: String {
        if let path { return "\(operation) \(path): \(reason)" }
        return "\(operation): \(reason)"
    }
}
