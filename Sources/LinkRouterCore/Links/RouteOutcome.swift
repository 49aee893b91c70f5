/// What `Route` answers for a link it took: the one word `linkctl open` prints.
public enum RouteOutcome: String, Sendable, CaseIterable {
    /// A code reached its session: the owner's `Wait` returns it.
    case completed
    /// The provider (or an `iss` mismatch) ended the session without a code.
    case failed
    /// The Vipps/MobilePay app step came back on `app_callback_uri`.
    case resumed
    /// Not a callback: the link went, byte for byte, to the browser.
    case passthrough
    /// Handed to the app that owns it, running or started by D-Bus activation.
    case delivered
    /// The app that owns it was started through its `Exec` line.
    case launched

    /// The word on the bus and on linkctl's stdout.
    public var word: String { rawValue }
}
