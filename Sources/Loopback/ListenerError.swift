/// The listener could not be set up; the message says what to do.
public struct ListenerError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
