/// The listener could not be set up; the message says what to do.
public struct ListenerError: Error, Sendable, CustomStringConvertible {
    public let description: String
    /// The port is another program's (worth a retry when the kernel chose it).
    let portTaken: Bool
    /// The machine lacks the address (no IPv6): listening on the others may do.
    let unavailableAddress: Bool

    public init(_ description: String) { self.init(description, portTaken: false, unavailableAddress: false) }

    init(_ description: String, portTaken: Bool = false, unavailableAddress: Bool = false) {
        self.description = description
        self.portTaken = portTaken
        self.unavailableAddress = unavailableAddress
    }
}
