import DBusKit

/// What a method handler produced.
enum MethodReply {
    /// Reply now with these values.
    case values([DBusValue])
    /// The handler keeps the call and replies later (`Wait`).
    case deferred
}
