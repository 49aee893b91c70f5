/// What the focus checks ask of a compositor (headless sway, `Compositor`; headless mutter, `Mutter`): whether an
/// app's window is there, which has the focus, the person putting one in front, and a key press in the focused one.
protocol WaylandCompositor: AnyObject {
    /// Whether `appID` has a window on it.
    func hasWindow(_ appID: String) -> Bool
    /// The app id of the focused window.
    func focused() -> String?
    /// The person puts `appID`'s window in front, once it is there.
    func focus(_ appID: String) throws
    /// A key press in the focused window: input whose serial the compositor grants a token for.
    func press() throws
    /// The compositor's own account of what it did, for a failing test's message.
    var log: String { get }
}
