/// The names of linkrouter's bus contract as plain strings: their one
/// spelling. `API` (LinkRouterAPI) gives them DBusKit's checked types for the
/// daemon and linkctl; linkctl's front (`Sources/LinkctlFront`), built in
/// Embedded Swift without DBusKit, compiles this file as it is.
public enum BusNames {
    public static let busName = "org.linkrouter.LinkRouter1"
    public static let managerPath = "/org/linkrouter/LinkRouter1"
    public static let managerInterface = "org.linkrouter.LinkRouter1"
    public static let errorPrefix = "org.linkrouter.LinkRouter1.Error."
}
