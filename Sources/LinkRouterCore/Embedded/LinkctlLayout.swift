/// Where the two halves of `linkctl` live. The `linkctl` on `PATH` is the
/// front (`Sources/LinkctlFront`, Embedded Swift: it starts like a C program)
/// and serves the verbs run on every click and token; it hands every other
/// verb to the full linkctl (`Sources/linkctl`) by `exec`, with the same
/// arguments. Both read this file, so each finds the other.
public enum LinkctlLayout {
    /// The full linkctl's file name.
    public static let fullName = "linkctl-full"
    /// The names linkctl also answers to (symlinks to it): docker's credential
    /// helper and git's (`credential.helper = linkrouter`).
    public static let dockerHelperName = "docker-credential-linkrouter"
    public static let gitHelperName = "git-credential-linkrouter"
    /// Where an installation keeps it, under the prefix (`/usr/bin/linkctl` → `/usr/libexec/linkrouter/linkctl-full`).
    static let libexecSuffix = "/libexec/linkrouter"
    static let binSuffix = "/bin"

    /// The full linkctl for a front in `frontDirectory`: beside it (a build
    /// directory, `.build/release/`), else in the prefix's libexec directory.
    public static func fullCandidates(frontDirectory: String) -> [String] {
        var candidates = [frontDirectory + "/" + fullName]
        if frontDirectory.hasSuffix(binSuffix) {
            candidates.append(String(frontDirectory.dropLast(binSuffix.count)) + libexecSuffix + "/" + fullName)
        }
        return candidates
    }

    /// The front's directory for a full linkctl in `fullDirectory`: what
    /// desktop files and units name (`Exec=<dir>/linkctl open -- %u`).
    public static func frontDirectory(fullDirectory: String) -> String {
        guard fullDirectory.hasSuffix(libexecSuffix) else { return fullDirectory }
        return String(fullDirectory.dropLast(libexecSuffix.count)) + binSuffix
    }
}
