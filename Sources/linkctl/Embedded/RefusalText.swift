#if !hasFeature(Embedded)
    import LinkRouterCore
#endif

/// How linkctl shows the daemon's refusal: its message, then its error name
/// short (`… (NotSignedIn)`) so a script or a person can look it up. One
/// spelling for the full linkctl and its front, which compiles this file.
public enum RefusalText {
    public static func text(name: String, message: String) -> String {
        let short = name.hasPrefix(BusNames.errorPrefix) ? String(name.dropFirst(BusNames.errorPrefix.count)) : name
        return message + " (" + short + ")"
    }
}
