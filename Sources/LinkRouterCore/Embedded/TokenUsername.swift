/// The user name given beside a token where a protocol wants one (git's credential answer, docker's), and the rule
/// `linkctl credential git --username` keeps to. Both halves of linkctl and the account rules read it here.
public enum TokenUsername {
    /// When none is given: forges and registries take any user name beside a token as password, and GitLab and
    /// GitHub's docs name this one.
    public static let fallback = "oauth2"

    /// `--username`'s rule: printable ASCII with no space or ':' (git's credential lines and HTTP's basic
    /// authentication would split it otherwise).
    public static func isGitUsername(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { $0 > 0x20 && $0 != 0x7F && $0 != 0x3A }
    }

    /// The usage error when it does not hold.
    public static let gitUsernameRule = "--username takes printable ASCII with no space or ':'"
}
